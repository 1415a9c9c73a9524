package dev.tether.cluster;

import java.util.List;
import java.util.Objects;
import java.util.Random;

/**
 * Power of two choices: samples two distinct live nodes at random and takes the one with fewer
 * calls in flight; on a tie, the one whose latency average is clearly lower (under half the
 * other's), where a node with no latency yet (0) counts as fastest so that new nodes get measured;
 * else the first sample, which is a random one. Identical nodes mostly tie at zero in flight, and a
 * tie broken by noisy latency averages locks onto the few that measured lowest (30 servers, 8
 * callers: the busiest got 1.24 to 1.64 times the mean); broken at random they spread as RANDOM
 * does, while a node that is twice as slow still loses its ties.
 */
public final class LeastLoadedSelector implements NodeSelector {
  /** How many times faster a node must be to win a tie on latency: below that, noise decides. */
  private static final double CLEARLY_FASTER = 2.0;

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
    return latencyRank(candidate.latencyEwmaNanos()) * CLEARLY_FASTER
        < latencyRank(other.latencyEwmaNanos());
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
