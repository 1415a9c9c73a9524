package dev.tether.cluster;

import java.util.concurrent.locks.ReentrantLock;

/**
 * One node's recent latencies for {@link EpsilonGreedySelector}: a ring of {@code buckets} buckets
 * of (call count, total latency), one bucket per period of the caller's clock, whose linearly
 * weighted average (the current bucket weighs {@code buckets}, the oldest 1) and epsilon value are
 * cached so that reading them costs two volatile loads.
 *
 * <p>Periods are numbered by the selector ({@code nowNanos / bucketNanos}); a window moves to a
 * later period lazily, when it is read or written with that number, clearing the buckets it skips.
 * Writers take the window's lock; readers of an up-to-date window take none. A lock rather than a
 * monitor, so callers on virtual threads that meet here do not pin their carriers (before Java 24
 * they would).
 */
final class LatencyWindow {
  /**
   * Epsilon values are kept within these bounds so that sums over nodes stay finite and positive.
   */
  private static final double MIN_VALUE = 1e-300;

  private static final double MAX_VALUE = 1e300;

  /**
   * Averages below one microsecond are read as one microsecond (a zero latency has no epsilon
   * value).
   */
  private static final double MIN_LATENCY_MILLIS = 1e-3;

  private final EpsilonCalculator calculator;

  /** How many buckets the ring holds (120 by default, as the RethinkDB driver has). */
  private final int buckets;

  private final long[] counts;
  private final long[] totalNanos;

  /** Guards the buckets and the sums below; reentrant, since recording may move the window on. */
  private final ReentrantLock writing = new ReentrantLock();

  /** Index of the bucket of {@link #period}. */
  private int current;

  /** Sum of weight x mean over the non-empty buckets other than the current one. */
  private double olderWeightedSum;

  /** Sum of the weights of the non-empty buckets other than the current one. */
  private double olderWeights;

  /**
   * Written after the cached values when moving on, so a reader that sees a period sees its values.
   */
  private volatile long period;

  /** NaN while no bucket holds a call. */
  private volatile double weightedAverageNanos = Double.NaN;

  /** NaN while no bucket holds a call. */
  private volatile double epsilonValue = Double.NaN;

  LatencyWindow(EpsilonCalculator calculator, int buckets, long period) {
    this.calculator = calculator;
    this.buckets = buckets;
    this.counts = new long[buckets];
    this.totalNanos = new long[buckets];
    this.period = period;
  }

  /** The latest period this window has been moved to. */
  long period() {
    return period;
  }

  /** The node's epsilon value as of {@code period}, or NaN when the window holds no call. */
  double epsilonValue(long period) {
    moveTo(period);
    return epsilonValue;
  }

  /** The weighted average latency as of {@code period}, or NaN when the window holds no call. */
  double weightedAverageNanos(long period) {
    moveTo(period);
    return weightedAverageNanos;
  }

  /**
   * Adds one call to the bucket of {@code period}; a period older than the window's counts as
   * current.
   */
  void record(long latencyNanos, long period) {
    writing.lock();
    try {
      moveTo(period);
      counts[current]++;
      totalNanos[current] += Math.max(0, latencyNanos);
      refreshCachedValues();
    } finally {
      writing.unlock();
    }
  }

  private void moveTo(long period) {
    if (period > this.period) {
      advance(period);
    }
  }

  private void advance(long period) {
    writing.lock();
    try {
      long steps = period - this.period;
      if (steps <= 0) {
        return; // another thread moved the window meanwhile
      }
      for (long step = 0; step < Math.min(steps, buckets); step++) {
        current = (current + 1) % buckets;
        counts[current] = 0;
        totalNanos[current] = 0;
      }
      sumOlderBuckets();
      refreshCachedValues();
      this.period = period;
    } finally {
      writing.unlock();
    }
  }

  /** Recomputes the older buckets' share of the average: once per period, not per call. */
  private void sumOlderBuckets() {
    double weightedSum = 0;
    double weights = 0;
    for (int age = 1; age < buckets; age++) {
      int index = Math.floorMod(current - age, buckets);
      if (counts[index] > 0) {
        int weight = buckets - age;
        weightedSum += weight * ((double) totalNanos[index] / counts[index]);
        weights += weight;
      }
    }
    olderWeightedSum = weightedSum;
    olderWeights = weights;
  }

  private void refreshCachedValues() {
    double weightedSum = olderWeightedSum;
    double weights = olderWeights;
    if (counts[current] > 0) {
      weightedSum += buckets * ((double) totalNanos[current] / counts[current]);
      weights += buckets;
    }
    if (weights == 0) {
      weightedAverageNanos = Double.NaN;
      epsilonValue = Double.NaN;
      return;
    }
    double average = weightedSum / weights;
    weightedAverageNanos = average;
    double value = calculator.valueOf(Math.max(average / 1e6, MIN_LATENCY_MILLIS));
    epsilonValue = Math.min(Math.max(value, MIN_VALUE), MAX_VALUE);
  }
}
