package dev.tether.client;

import java.time.Duration;

/**
 * Failure accrual for nodes whose connection is up but whose calls fail (as Finagle and Envoy's
 * outlier detection do): after {@code consecutiveFailures} INTERNAL, DEADLINE_EXCEEDED or attempt
 * timeouts in a row, or when under {@code minSuccessRate} of its calls of the last ten seconds
 * succeeded (once there were {@code minCalls}), a node is ejected for {@code base}, doubling on
 * each repeat up to {@code max}; one probe call then decides; never more than {@code maxShare} of a
 * group is ejected at once. The application's own errors (REMOTE_ERROR) are successes here: the
 * node answered.
 */
public record EjectionPolicy(
    int consecutiveFailures,
    double minSuccessRate,
    int minCalls,
    Duration base,
    Duration max,
    double maxShare) {

  /** Whether {@code successes} out of {@code successes + failures} recent calls is too few. */
  public boolean successRateTooLow(long successes, long failures) {
    long calls = successes + failures;
    return calls >= minCalls && successes < minSuccessRate * calls;
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
