package dev.tether.internal;

/**
 * Bounds retries so a failing cluster is not hit by a retry storm: over a sliding window (ten
 * one-second buckets), retries may not exceed {@code ratio} of the calls made plus
 * {@code floorPerSecond} per second of the window. Thread-safe; time comes from the caller.
 */
public final class RetryBudget {
  private static final int BUCKETS = 10;
  private static final long BUCKET_NANOS = 1_000_000_000L;

  private final double ratio;
  private final double floorPerSecond;
  private final long[] calls = new long[BUCKETS];
  private final long[] retries = new long[BUCKETS];
  private final long[] bucketEpoch = new long[BUCKETS];

  public RetryBudget(double ratio, double floorPerSecond) {
    this.ratio = ratio;
    this.floorPerSecond = floorPerSecond;
  }

  /** 20% of recent calls plus 10 retries a second. */
  public static RetryBudget standard() {
    return new RetryBudget(0.2, 10);
  }

  /** Counts a first attempt. */
  public synchronized void recordCall(long nowNanos) {
    calls[bucket(nowNanos)]++;
  }

  /** Takes one retry from the budget; false when the budget is spent (the retry must not happen). */
  public synchronized boolean tryRetry(long nowNanos) {
    int current = bucket(nowNanos);
    long oldestEpoch = bucketEpoch[current] - BUCKETS + 1;
    long windowCalls = 0;
    long windowRetries = 0;
    for (int i = 0; i < BUCKETS; i++) {
      if (bucketEpoch[i] >= oldestEpoch) {
        windowCalls += calls[i];
        windowRetries += retries[i];
      }
    }
    if (windowRetries + 1 > ratio * windowCalls + floorPerSecond * BUCKETS) {
      return false;
    }
    retries[current]++;
    return true;
  }

  /** The bucket for now, emptied first if it last counted an older second. */
  private int bucket(long nowNanos) {
    long epoch = Math.floorDiv(nowNanos, BUCKET_NANOS);
    int i = (int) Math.floorMod(epoch, (long) BUCKETS);
    if (bucketEpoch[i] != epoch) {
      bucketEpoch[i] = epoch;
      calls[i] = 0;
      retries[i] = 0;
    }
    return i;
  }
}
