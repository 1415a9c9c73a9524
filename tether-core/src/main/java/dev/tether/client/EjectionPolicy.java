package dev.tether.client;

import java.time.Duration;

/**
 * Failure accrual for nodes whose connection is up but whose calls fail (as Finagle and Envoy's
 * outlier detection do): after {@code consecutiveFailures} INTERNAL, DEADLINE_EXCEEDED or attempt
 * timeouts in a row, or when under {@code minSuccessRate} of its calls of the last ten seconds
 * succeeded (once there were {@code minCalls}), a node is ejected for {@code base}, doubling on
 * each repeat up to {@code max}; one probe call then decides; never more than {@code maxShare} of a
 * group is ejected at once. Relative to the group (as gRPC's outlier detection compares success
 * rates): a node whose failed answers among its last {@code outlierCalls} calls, the service's own
 * errors included, are a share at least {@code outlierGap} above its peers' among their last as
 * many is ejected too, so a node that turns sick is out within a few dozen of its own calls,
 * whatever the call rate and however long it was healthy before, while a group whose nodes all fail
 * alike keeps every node.
 */
public record EjectionPolicy(
    int consecutiveFailures,
    double minSuccessRate,
    int minCalls,
    Duration base,
    Duration max,
    double maxShare,
    double outlierGap,
    int outlierCalls) {

  /** The last answers of each node the relative rule compares by default. */
  public static final int DEFAULT_OUTLIER_CALLS = 40;

  public EjectionPolicy {
    if (outlierCalls < 1) {
      throw new IllegalArgumentException(
          "tether.cluster.ejection.outlierCalls must be at least 1, got " + outlierCalls);
    }
  }

  /** A policy whose relative rule compares each node's last 40 answers. */
  public EjectionPolicy(
      int consecutiveFailures,
      double minSuccessRate,
      int minCalls,
      Duration base,
      Duration max,
      double maxShare,
      double outlierGap) {
    this(
        consecutiveFailures,
        minSuccessRate,
        minCalls,
        base,
        max,
        maxShare,
        outlierGap,
        DEFAULT_OUTLIER_CALLS);
  }

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
   * Whether a node's share of failed answers stands out from its peers': the node's counted over
   * its last {@code outlierCalls} answers and each peer's over as many of its own, the node on at
   * least {@link #minCompared} of them, its peers together on at least half as many (fewer say
   * nothing of them), and the node's share {@code outlierGap} or more above theirs. A node with no
   * peers never stands out.
   */
  public boolean standsOut(long good, long failed, long peersGood, long peersFailed) {
    long calls = good + failed;
    long peerCalls = peersGood + peersFailed;
    int least = minCompared();
    if (calls < least || !peersSayEnough(peerCalls) || calls == 0) {
      return false;
    }
    return (double) failed / calls - (double) peersFailed / peerCalls >= outlierGap;
  }

  /**
   * Whether the peers' answers together, {@code peerCalls} of them, are enough to compare a node
   * with: at least half of {@link #minCompared}, and at least one. Fewer say nothing against it.
   */
  public boolean peersSayEnough(long peerCalls) {
    return peerCalls > 0 && peerCalls >= (minCompared() + 1) / 2;
  }

  /**
   * Whether a failed answer alone could make a node stand out: its own share is at least the gap.
   * Checked on the call's thread before the peers are read on the control executor.
   */
  public boolean mayStandOut(long good, long failed) {
    long calls = good + failed;
    return calls >= minCompared() && failed >= outlierGap * calls;
  }

  /**
   * The answers a node must have among its last {@code outlierCalls} before it is compared: {@code
   * minCalls}, or all of them when the window is smaller.
   */
  public int minCompared() {
    return Math.min(minCalls, outlierCalls);
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
