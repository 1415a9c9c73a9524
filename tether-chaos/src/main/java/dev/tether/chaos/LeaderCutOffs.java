package dev.tether.chaos;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The writes of each leader cut-off, per server: a write is a non-idempotent call through the proxy
 * that follows the announced primary, and once the other members announce a new leader, none may
 * run on the deposed one. Session calls (not idempotent either) are counted apart and held to the
 * same rule: a session keeps its connection, but a server that stops being the primary ends its
 * clients' connections, so a session on the deposed leader ends when it steps down, before the
 * announcement. {@link #violations()} names every write or session call that ran on the deposed
 * leader after the announcement, and a log too small to tell.
 *
 * @param cuts one per cut-off, in the plan's order
 */
public record LeaderCutOffs(List<Cut> cuts, boolean overflowed) {
  private static final int MAX_LATE_WRITES = 10;

  /** When a leader was cut off from ZooKeeper, and when the others announced the next one. */
  public record LeaderCut(int deposed, long cutNanos, int newLeader, long announcedNanos) {}

  /**
   * One cut-off's writes.
   *
   * @param writesPerNode every write of the run, by the node that ran it
   * @param deposedBefore writes on the deposed leader before it was cut off
   * @param deposedCutToAnnounced writes on it between the cut and the new leader's announcement
   *     (the window fencing narrows: it stops naming itself primary once ZooKeeper is silent)
   * @param deposedAfter writes on it after the new leader was announced: must be none
   * @param newLeaderAfter writes on the new leader after its announcement
   * @param sessionCallsOnDeposedAfter session calls that ran on the deposed leader after the
   *     announcement: must be none
   * @param lateWrites the first few of {@code deposedAfter}: call, kind, how late
   */
  public record Cut(
      LeaderCut cut,
      long[] writesPerNode,
      long deposedBefore,
      long deposedCutToAnnounced,
      long deposedAfter,
      long newLeaderAfter,
      long sessionCallsOnDeposedAfter,
      List<String> lateWrites) {}

  /** Counts the writes {@code log} holds around each of {@code cuts}. */
  static LeaderCutOffs judge(List<LeaderCut> cuts, ExecutionLog log, Ledger ledger, int nodes) {
    if (cuts.isEmpty() || log == null) {
      return new LeaderCutOffs(List.of(), false);
    }
    List<Cut> out = new ArrayList<>();
    for (LeaderCut c : cuts) {
      long[] perNode = new long[nodes];
      long before = 0;
      long window = 0;
      long after = 0;
      long newLeaderAfter = 0;
      List<String> late = new ArrayList<>();
      long sessionsAfter = 0;
      for (int i = 0; i < log.size(); i++) {
        CallKind kind = ledger.kindOf(log.id(i));
        int node = log.node(i);
        long t = log.nanos(i);
        if (kind == CallKind.SESSION && node == c.deposed() && t > c.announcedNanos()) {
          sessionsAfter++;
        }
        if (kind == null || !isWrite(kind)) {
          continue;
        }
        perNode[node]++;
        if (node == c.deposed()) {
          if (t < c.cutNanos()) {
            before++;
          } else if (t <= c.announcedNanos()) {
            window++;
          } else {
            after++;
            if (late.size() < MAX_LATE_WRITES) {
              late.add(
                  String.format(
                      Locale.ROOT,
                      "call %d (%s) %.1f ms after the announcement",
                      log.id(i),
                      kind.label,
                      (t - c.announcedNanos()) / 1e6));
            }
          }
        } else if (node == c.newLeader() && t > c.announcedNanos()) {
          newLeaderAfter++;
        }
      }
      out.add(
          new Cut(
              c, perNode, before, window, after, newLeaderAfter, sessionsAfter, List.copyOf(late)));
    }
    return new LeaderCutOffs(List.copyOf(out), log.overflowed());
  }

  /** Writes: what goes to the primary and must not run on two primaries. */
  static boolean isWrite(CallKind kind) {
    return kind == CallKind.PRIMARY_NON_IDEMPOTENT;
  }

  /** One line per broken promise; empty when there is none. */
  public List<String> violations() {
    List<String> lines = new ArrayList<>();
    for (Cut c : cuts) {
      lateOnDeposed(lines, c, c.deposedAfter(), "writes");
      lateOnDeposed(lines, c, c.sessionCallsOnDeposedAfter(), "session calls");
    }
    if (overflowed) {
      lines.add("the execution log overflowed: writes after a leader cut-off went uncounted");
    }
    return lines;
  }

  private static void lateOnDeposed(List<String> lines, Cut c, long count, String what) {
    if (count > 0) {
      lines.add(
          count
              + " "
              + what
              + " ran on node "
              + c.cut().deposed()
              + ", a leader cut off from ZooKeeper, after node "
              + c.cut().newLeader()
              + " was announced as the new leader");
    }
  }

  public void print(PrintStream out) {
    for (Cut c : cuts) {
      out.printf(
          Locale.ROOT,
          "leader cut off from ZooKeeper: node %d; node %d announced %.1f s later; writes on the"
              + " deposed leader %d before the cut, %d until the announcement, %d after; on the new"
              + " leader after it %d; writes per server %s; session calls on the deposed leader"
              + " after the announcement %d%n",
          c.cut().deposed(),
          c.cut().newLeader(),
          (c.cut().announcedNanos() - c.cut().cutNanos()) / 1e9,
          c.deposedBefore(),
          c.deposedCutToAnnounced(),
          c.deposedAfter(),
          c.newLeaderAfter(),
          Arrays.toString(c.writesPerNode()),
          c.sessionCallsOnDeposedAfter());
      c.lateWrites().forEach(w -> out.println("  late write: " + w));
    }
  }
}
