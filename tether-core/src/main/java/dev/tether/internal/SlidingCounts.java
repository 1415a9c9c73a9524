package dev.tether.internal;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Two counts over a sliding window of ten one-second buckets (say calls and retries, or successes
 * and failures). Adding takes no lock, since a call on the hot path may do it; rolling a bucket
 * over to a new second does. Time comes from the caller.
 */
public final class SlidingCounts {
  private static final int BUCKETS = 10;
  private static final long BUCKET_NANOS = 1_000_000_000L;

  private final AtomicLongArray first = new AtomicLongArray(BUCKETS);
  private final AtomicLongArray second = new AtomicLongArray(BUCKETS);
  /** The second each bucket counts; a bucket found holding an older second is emptied first. */
  private final AtomicLongArray bucketEpoch = new AtomicLongArray(BUCKETS);
  /**
   * Held while a bucket rolls over or the counts clear. A lock rather than a monitor: callers on
   * virtual threads that meet here wait without holding their carrier (a monitor would pin it
   * before Java 24).
   */
  private final ReentrantLock rolling = new ReentrantLock();

  public SlidingCounts() {
    for (int i = 0; i < BUCKETS; i++) {
      bucketEpoch.set(i, Long.MIN_VALUE);
    }
  }

  /** How many seconds the window spans. */
  public static int windowSeconds() {
    return BUCKETS;
  }

  public void addFirst(long nowNanos) {
    first.incrementAndGet(bucket(nowNanos));
  }

  public void addSecond(long nowNanos) {
    second.incrementAndGet(bucket(nowNanos));
  }

  /** The sums of both counts over the window ending at {@code nowNanos}: {@code [first, second]}. */
  public long[] sums(long nowNanos) {
    int current = bucket(nowNanos);
    long oldestEpoch = bucketEpoch.get(current) - BUCKETS + 1;
    long a = 0;
    long b = 0;
    for (int i = 0; i < BUCKETS; i++) {
      if (bucketEpoch.get(i) >= oldestEpoch) {
        a += first.get(i);
        b += second.get(i);
      }
    }
    return new long[] {a, b};
  }

  /** Forgets everything counted so far. */
  public void clear() {
    rolling.lock();
    try {
      for (int i = 0; i < BUCKETS; i++) {
        first.set(i, 0);
        second.set(i, 0);
      }
    } finally {
      rolling.unlock();
    }
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
  private void roll(int i, long seen, long epoch) {
    rolling.lock();
    try {
      if (bucketEpoch.get(i) == seen && seen < epoch) {
        first.set(i, 0);
        second.set(i, 0);
        bucketEpoch.set(i, epoch);
      }
    } finally {
      rolling.unlock();
    }
  }
}
