package dev.tether.chaos;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a chaos run found: the ledger's totals, the stream ledger's, the faults injected, the
 * client's events, the connection and leak checks, and every violation. {@link #violations()} empty
 * means it passed.
 *
 * @param sickNodes how each sick node was taken out of its group
 * @param leaderCutOffs the writes per server around each leader cut off from ZooKeeper
 * @param hostileAttacks what the servers did with each hostile stream client
 * @param underLoad the same figures under load, before the first fault: the counters move
 * @param leakProblems resources that did not come back to their baseline, one line each
 * @param connectionProblems connections left over after the run, one line each
 */
public record ChaosReport(
    ChaosSettings settings,
    Duration elapsed,
    LedgerTotals ledger,
    StreamTotals streams,
    Map<FaultKind, Integer> faultsInjected,
    List<String> faultFailures,
    SickNodes sickNodes,
    LeaderCutOffs leaderCutOffs,
    List<HostileClients.Attack> hostileAttacks,
    Map<String, Long> clientEvents,
    String connectionsBefore,
    String connectionsAfter,
    List<String> connectionProblems,
    ResourceSnapshot baseline,
    ResourceSnapshot underLoad,
    ResourceSnapshot after,
    String allowance,
    List<String> leakProblems,
    boolean loadStoppedInTime) {

  /**
   * The most round-robin calls one sick node may answer with its error before its group ejects it:
   * the client ejects a node once 20 of its calls in ten seconds failed beyond its peers' ({@code
   * tether.cluster.ejection.minCalls}), plus the calls already on their way to it then.
   */
  static final int SICK_ANSWERS_PER_FAULT = 60;

  /** Calls per second the load reached. */
  public double rateReached() {
    return ledger.calls() / Math.max(1e-9, elapsed.toNanos() / 1e9);
  }

  /** Everything that fails the run; empty when it passed. */
  public List<String> violations() {
    List<String> out = new ArrayList<>(ledger.violations());
    out.addAll(streams.violations());
    out.addAll(sickNodes.violations());
    out.addAll(leaderCutOffs.violations());
    out.addAll(HostileClients.violations(hostileAttacks));
    out.addAll(faultFailures);
    out.addAll(connectionProblems);
    out.addAll(leakProblems);
    if (!loadStoppedInTime) {
      out.add("a load worker was still in a call or a stream after the run (a hung call)");
    }
    return out;
  }

  public void print(PrintStream out) {
    out.println("==== chaos ledger ====");
    out.printf(
        Locale.ROOT,
        "seed %d (replay: -Dchaos.seed=%d), %d nodes, %d workers, target %.0f calls/s,"
            + " node reconnect policy %s, %.1f s of load: %.1f calls/s reached%n",
        settings.seed(),
        settings.seed(),
        settings.nodes(),
        settings.workers(),
        settings.ratePerSecond(),
        settings.nodeReconnectPolicy(),
        elapsed.toNanos() / 1e9,
        rateReached());
    ledger.print(out);
    streams.print(out);
    int faults = faultsInjected.values().stream().mapToInt(Integer::intValue).sum();
    out.println("faults injected: " + faults);
    faultsInjected.forEach((k, n) -> out.printf(Locale.ROOT, "  %-20s %d%n", k.label, n));
    sickNodes.print(out);
    leaderCutOffs.print(out);
    HostileClients.print(hostileAttacks, out);
    out.println("client events: " + clientEvents);
    out.println("connections under load before the first fault: " + connectionsBefore);
    out.println("connections after the run, load stopped:        " + connectionsAfter);
    out.println("leak check before: " + baseline);
    out.println("under load:        " + underLoad);
    out.println("leak check after:  " + after);
    out.println("threads alive after that were not before: " + after.threadsNotIn(baseline));
    out.println("allowance: " + allowance);
    List<String> v = violations();
    out.println(
        v.isEmpty()
            ? "verdict: PASSED (duplicates 0, lost 0; stream items twice 0, skipped 0, lost when "
                + "resumed 0,"
                + " every stream loss reported; no leak)"
            : "verdict: FAILED");
    v.forEach(line -> out.println("  " + line));
    out.println("======================");
  }
}
