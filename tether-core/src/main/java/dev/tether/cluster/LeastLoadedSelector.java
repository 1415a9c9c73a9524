package dev.tether.cluster;

import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Power of two choices: samples two distinct live nodes at random and takes the one with fewer
 * calls in flight; on a tie, the one whose latency average is clearly lower (under a quarter of the
 * other's), where a node with no latency yet (0) counts as fastest so that new nodes get measured;
 * else the one this selector picked less recently, and with neither picked yet the first sample.
 * Identical nodes mostly tie at zero in flight: a tie broken by noisy latency averages locks onto
 * the few that measured lowest (30 servers, 8 callers: the busiest got 1.24 to 1.64 times the
 * mean), and one broken at random spreads as RANDOM does (up to 1.11 in our runs), while the node
 * that waited longest evens the counts out; a node more than four times as slow still loses its
 * ties.
 */
public final class LeastLoadedSelector implements NodeSelector {
  /**
   * How many times faster a node must be to win a tie on latency: below that, noise would decide,
   * so the wait does.
   */
  private static final double CLEARLY_FASTER = 4.0;

  private final Random random;

  /** The picks so far: each pick's turn number, which the chosen node keeps. */
  private final AtomicLong turns = new AtomicLong();

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
    int chosen = isBetter(live.get(second), live.get(first)) ? second : first;
    live.get(chosen).picked(turns.incrementAndGet());
    return chosen;
  }

  /** Whether {@code candidate} should take the call rather than {@code other}. */
  private static boolean isBetter(NodeStats candidate, NodeStats other) {
    int candidateLoad = candidate.inFlight();
    int otherLoad = other.inFlight();
    if (candidateLoad != otherLoad) {
      return candidateLoad < otherLoad;
    }
    double candidateLatency = latencyRank(candidate.latencyEwmaNanos());
    double otherLatency = latencyRank(other.latencyEwmaNanos());
    if (candidateLatency * CLEARLY_FASTER < otherLatency) {
      return true;
    }
    if (otherLatency * CLEARLY_FASTER < candidateLatency) {
      return false;
    }
    return candidate.lastPick() < other.lastPick();
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
