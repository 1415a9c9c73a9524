package dev.tether.client;

import java.time.Duration;

/**
 * Failure accrual for nodes whose connection is up but whose calls fail (as Finagle and Envoy's
 * outlier detection do): after {@code consecutiveFailures} INTERNAL, DEADLINE_EXCEEDED or attempt
 * timeouts in a row, or when under {@code minSuccessRate} of its calls of the last ten seconds
 * succeeded (once there were {@code minCalls}), a node is ejected for {@code base}, doubling on
 * each repeat up to {@code max}; one probe call then decides; never more than {@code maxShare} of a
 * group is ejected at once. Relative to the group (as gRPC's outlier detection compares success
 * rates): a node whose failed answers of the last ten seconds, the service's own errors included,
 * are a share at least {@code outlierGap} above its peers' over the same seconds is ejected too, so
 * a node that fails fast is out within a few dozen of its calls while a group whose nodes all fail
 * alike keeps every node.
 */
public record EjectionPolicy(
    int consecutiveFailures,
    double minSuccessRate,
    int minCalls,
    Duration base,
    Duration max,
    double maxShare,
    double outlierGap) {

  /** A policy whose relative rule ejects at a gap of one half. */
  public EjectionPolicy(
      int consecutiveFailures,
      double minSuccessRate,
      int minCalls,
      Duration base,
      Duration max,
      double maxShare) {
    this(consecutiveFailures, minSuccessRate, minCalls, base, max, maxShare, 0.5);
  }

  /** Whether {@code successes} out of {@code successes + failures} recent calls is too few. */
  public boolean successRateTooLow(long successes, long failures) {
    long calls = successes + failures;
    return calls >= minCalls && successes < minSuccessRate * calls;
  }

  /**
   * Whether a node's share of failed answers stands out from its peers': both counted over the same
   * recent seconds, the node on at least {@code minCalls}, its peers together on at least half as
   * many (fewer say nothing of them), and the node's share {@code outlierGap} or more above theirs.
   * A node with no peers never stands out.
   */
  public boolean standsOut(long good, long failed, long peersGood, long peersFailed) {
    long calls = good + failed;
    long peerCalls = peersGood + peersFailed;
    if (calls < minCalls || peerCalls < (minCalls + 1) / 2 || calls == 0 || peerCalls == 0) {
      return false;
    }
    return (double) failed / calls - (double) peersFailed / peerCalls >= outlierGap;
  }

  /**
   * Whether a failed answer alone could make a node stand out: its own share is at least the gap.
   * Checked on the call's thread before the peers are read on the control executor.
   */
  public boolean mayStandOut(long good, long failed) {
    long calls = good + failed;
    return calls >= minCalls && failed >= outlierGap * calls;
  }

  /** How long the {@code n}-th ejection in a row lasts (n from 1). */
  public Duration duration(int n) {
    Duration d = base;
    for (int i = 1; i < n && d.compareTo(max) < 0; i++) {
      d = d.multipliedBy(2);
    }
    return d.compareTo(max) > 0 ? max : d;
  }

  /** Whether a group of {@code size} nodes may have one more ejected than {@code ejected}. */
  public boolean allowsAnother(int ejected, int size) {
    return ejected + 1 <= Math.floor(maxShare * size);
  }
}
