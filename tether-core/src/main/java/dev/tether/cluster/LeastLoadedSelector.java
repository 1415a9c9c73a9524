package dev.tether.cluster;

import java.util.List;
import java.util.Objects;
import java.util.Random;

/**
 * Power of two choices: samples two distinct live nodes at random and takes the one with fewer
 * calls in flight; on a tie, the one with the lower latency average, where a node with no latency
 * yet (0) counts as fastest so that new nodes get measured; on a full tie, the first sample.
 */
public final class LeastLoadedSelector implements NodeSelector {
  private final Random random;

  public LeastLoadedSelector(Random random) {
    this.random = Objects.requireNonNull(random, "random");
  }

  @Override
  public int pick(List<? extends NodeStats> live, long nowNanos) {
    int size = live.size();
    if (size == 1) {
      return 0;
    }
    int first = random.nextInt(size);
    int second = random.nextInt(size - 1);
    if (second >= first) {
      second++; // skip over the first sample: the two are distinct and each pair equally likely
    }
    return isBetter(live.get(second), live.get(first)) ? second : first;
  }

  /** Whether {@code candidate} should take the call rather than {@code other}. */
  private static boolean isBetter(NodeStats candidate, NodeStats other) {
    int candidateLoad = candidate.inFlight();
    int otherLoad = other.inFlight();
    if (candidateLoad != otherLoad) {
      return candidateLoad < otherLoad;
    }
    return latencyRank(candidate.latencyEwmaNanos()) < latencyRank(other.latencyEwmaNanos());
  }

  /** Latency for comparison: unknown (0 or less) sorts before every measured value. */
  private static double latencyRank(double latencyEwmaNanos) {
    return latencyEwmaNanos > 0 ? latencyEwmaNanos : Double.NEGATIVE_INFINITY;
  }

  @Override
  public String toString() {
    return "LeastLoadedSelector";
  }
}
