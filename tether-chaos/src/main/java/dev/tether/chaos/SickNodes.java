package dev.tether.chaos;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * How each sick node of a run was taken out: when its group ejected it (the client's {@code
 * NODE_EJECTED} for its endpoint while it was sick), how many round-robin calls it answered with
 * its error before, and how many after. Only one node is sick at a time (the plan spaces them), so
 * every sick answer while one is sick is that node's. {@link #violations()}: a node still answering
 * round-robin calls once ejected, beyond the calls already on their way; a node sick for {@link
 * #EJECTION_PATIENCE_NANOS} or longer never ejected.
 *
 * @param sicknesses one per sick node, in the plan's order
 */
public record SickNodes(List<Sickness> sicknesses) {
  /**
   * How long a sick node may go unejected: the client compares the failed share of the node's
   * answers over the last ten seconds with its peers' and ejects it at a gap of one half, so a node
   * that was healthy for those ten seconds stands out about five seconds into its sickness,
   * whatever the call rate (a node without a past, within a few dozen calls).
   */
  static final long EJECTION_PATIENCE_NANOS = TimeUnit.MILLISECONDS.toNanos(7000);

  /** Sick answers allowed after the ejection: the calls already sent to it then. */
  static final int ANSWERS_AFTER_EJECTION = 30;

  /** Answers that come after the heal still belong to the sickness: they were on their way. */
  private static final long AFTER_HEAL_NANOS = TimeUnit.SECONDS.toNanos(1);

  /**
   * One sick node.
   *
   * @param ejectedAfterNanos from the sickness's start to the node's ejection; -1: never ejected
   * @param answersBefore round-robin calls it answered with its error before it was ejected (all of
   *     them when it never was)
   * @param answersAfter the same after its ejection
   */
  public record Sickness(
      int node, long heldNanos, long ejectedAfterNanos, long answersBefore, long answersAfter) {}

  /** An ejection the client announced: the node's endpoint, when on the run's clock. */
  public record Ejection(String endpoint, long atNanos) {}

  /**
   * Judges the sick nodes of {@code played} (other faults are skipped).
   *
   * @param endpoints every node's endpoint, in index order
   * @param sickAnswerTimes when round-robin calls were told a sick node's error, sorted
   * @param endNanos when the run ended: the heal time of a sickness that was never healed
   */
  public static SickNodes judge(
      List<FaultDriver.Played> played,
      List<String> endpoints,
      List<Ejection> ejections,
      long[] sickAnswerTimes,
      long endNanos) {
    List<Sickness> out = new ArrayList<>();
    for (FaultDriver.Played p : played) {
      if (p.step().kind() != FaultKind.SICK_NODE) {
        continue;
      }
      int node = p.step().node();
      long began = p.beganNanos();
      long healed = p.healedNanos() != 0 ? p.healedNanos() : endNanos;
      long ejected = -1;
      for (Ejection e : ejections) {
        if (e.endpoint().equals(endpoints.get(node))
            && e.atNanos() >= began
            && e.atNanos() <= healed
            && (ejected < 0 || e.atNanos() < ejected)) {
          ejected = e.atNanos();
        }
      }
      long before = 0;
      long after = 0;
      for (long t : sickAnswerTimes) {
        if (t >= began && t <= healed + AFTER_HEAL_NANOS) {
          if (ejected >= 0 && t > ejected) {
            after++;
          } else {
            before++;
          }
        }
      }
      out.add(
          new Sickness(node, healed - began, ejected < 0 ? -1 : ejected - began, before, after));
    }
    return new SickNodes(List.copyOf(out));
  }

  /** One line per broken promise; empty when there is none. */
  public List<String> violations() {
    List<String> out = new ArrayList<>();
    for (Sickness s : sicknesses) {
      if (s.ejectedAfterNanos() >= 0 && s.answersAfter() > ANSWERS_AFTER_EJECTION) {
        out.add(
            "sick node "
                + s.node()
                + " answered "
                + s.answersAfter()
                + " round-robin calls after its ejection (at most "
                + ANSWERS_AFTER_EJECTION
                + " were on their way)");
      }
      if (s.ejectedAfterNanos() < 0 && s.heldNanos() >= EJECTION_PATIENCE_NANOS) {
        out.add(
            "sick node "
                + s.node()
                + " was never ejected in "
                + TimeUnit.NANOSECONDS.toMillis(s.heldNanos())
                + " ms of sickness ("
                + s.answersBefore()
                + " round-robin calls answered with its error)");
      }
    }
    return out;
  }

  public void print(PrintStream out) {
    for (Sickness s : sicknesses) {
      out.printf(
          Locale.ROOT,
          "sick node %d for %.1f s: %s, %d round-robin calls answered with its error before, %d"
              + " after%n",
          s.node(),
          s.heldNanos() / 1e9,
          s.ejectedAfterNanos() < 0
              ? "never ejected"
              : String.format(Locale.ROOT, "ejected after %.1f s", s.ejectedAfterNanos() / 1e9),
          s.answersBefore(),
          s.answersAfter());
    }
  }
}
