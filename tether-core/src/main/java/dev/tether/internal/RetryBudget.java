package dev.tether.internal;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Bounds retries so a failing cluster is not hit by a retry storm: over a sliding window (ten
 * one-second buckets), retries may not exceed {@code ratio} of the calls made plus
 * {@code floorPerSecond} per second of the window. Thread-safe; counting a call takes no lock,
 * since every call does it. Time comes from the caller.
 */
public final class RetryBudget {
  private static final int BUCKETS = 10;
  private static final long BUCKET_NANOS = 1_000_000_000L;

  private final double ratio;
  private final double floorPerSecond;
  private final AtomicLongArray calls = new AtomicLongArray(BUCKETS);
  private final AtomicLongArray retries = new AtomicLongArray(BUCKETS);
  /** The second each bucket counts; a bucket found holding an older second is emptied first. */
  private final AtomicLongArray bucketEpoch = new AtomicLongArray(BUCKETS);

  public RetryBudget(double ratio, double floorPerSecond) {
    this.ratio = ratio;
    this.floorPerSecond = floorPerSecond;
    for (int i = 0; i < BUCKETS; i++) {
      bucketEpoch.set(i, Long.MIN_VALUE);
    }
  }

  /** 20% of recent calls plus 10 retries a second. */
  public static RetryBudget standard() {
    return new RetryBudget(0.2, 10);
  }

  /** Counts a first attempt. */
  public void recordCall(long nowNanos) {
    calls.incrementAndGet(bucket(nowNanos));
  }

  /** Takes one retry from the budget; false when the budget is spent (the retry must not happen). */
  public synchronized boolean tryRetry(long nowNanos) {
    int current = bucket(nowNanos);
    long oldestEpoch = bucketEpoch.get(current) - BUCKETS + 1;
    long windowCalls = 0;
    long windowRetries = 0;
    for (int i = 0; i < BUCKETS; i++) {
      if (bucketEpoch.get(i) >= oldestEpoch) {
        windowCalls += calls.get(i);
        windowRetries += retries.get(i);
      }
    }
    if (windowRetries + 1 > ratio * windowCalls + floorPerSecond * BUCKETS) {
      return false;
    }
    retries.incrementAndGet(current);
    return true;
  }

  private int bucket(long nowNanos) {
    long epoch = Math.floorDiv(nowNanos, BUCKET_NANOS);
    int i = (int) Math.floorMod(epoch, (long) BUCKETS);
    long seen = bucketEpoch.get(i);
    if (seen != epoch) {
      roll(i, seen, epoch);
    }
    return i;
  }

  /** Empties a bucket for a new second; a count racing with the roll may land in either second. */
  private synchronized void roll(int i, long seen, long epoch) {
    if (bucketEpoch.get(i) == seen && seen < epoch) {
      calls.set(i, 0);
      retries.set(i, 0);
      bucketEpoch.set(i, epoch);
    }
  }
}
