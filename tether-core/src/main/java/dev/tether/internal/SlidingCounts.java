package dev.tether.internal;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Two counts over a sliding window of ten one-second buckets (say calls and retries, or successes
 * and failures). Adding takes no lock, since a call on the hot path may do it; rolling a bucket
 * over to a new second does. Time comes from the caller.
 */
public final class SlidingCounts {
  private static final int BUCKETS = 10;
  private static final long BUCKET_NANOS = 1_000_000_000L;

  /**
   * Striped counters rather than one array of atomics: every call of the runtime adds here, from
   * whichever thread makes or ends it, and one shared cache line bounced between them per call.
   */
  private final LongAdder[] first = adders();

  private final LongAdder[] second = adders();

  /** The second each bucket counts; a bucket found holding an older second is emptied first. */
  private final AtomicLongArray bucketEpoch = new AtomicLongArray(BUCKETS);

  /**
   * The newest second a bucket was found or rolled for: an add within it takes that bucket with two
   * comparisons instead of the two long divisions that place an arbitrary time. Racy on purpose:
   * any published second is one whose bucket was set up for it.
   */
  private volatile Second current;

  /**
   * Held while a bucket rolls over or the counts clear. A lock rather than a monitor: callers on
   * virtual threads that meet here wait without holding their carrier (a monitor would pin it
   * before Java 24).
   */
  private final ReentrantLock rolling = new ReentrantLock();

  /** A second of the clock and the bucket counting it. */
  private record Second(long epoch, long startNanos, int bucket) {
    boolean holds(long nowNanos) {
      long into = nowNanos - startNanos;
      return into >= 0 && into < BUCKET_NANOS;
    }
  }

  public SlidingCounts() {
    for (int i = 0; i < BUCKETS; i++) {
      bucketEpoch.set(i, Long.MIN_VALUE);
    }
  }

  private static LongAdder[] adders() {
    LongAdder[] adders = new LongAdder[BUCKETS];
    for (int i = 0; i < BUCKETS; i++) {
      adders[i] = new LongAdder();
    }
    return adders;
  }

  /** How many seconds the window spans. */
  public static int windowSeconds() {
    return BUCKETS;
  }

  public void addFirst(long nowNanos) {
    first[bucket(nowNanos)].increment();
  }

  public void addSecond(long nowNanos) {
    second[bucket(nowNanos)].increment();
  }

  /**
   * The sums of both counts over the window ending at {@code nowNanos}: {@code [first, second]}.
   */
  public long[] sums(long nowNanos) {
    int current = bucket(nowNanos);
    long oldestEpoch = bucketEpoch.get(current) - BUCKETS + 1;
    long a = 0;
    long b = 0;
    for (int i = 0; i < BUCKETS; i++) {
      if (bucketEpoch.get(i) >= oldestEpoch) {
        a += first[i].sum();
        b += second[i].sum();
      }
    }
    return new long[] {a, b};
  }

  /** Forgets everything counted so far. */
  public void clear() {
    rolling.lock();
    try {
      for (int i = 0; i < BUCKETS; i++) {
        first[i].reset();
        second[i].reset();
      }
    } finally {
      rolling.unlock();
    }
  }

  private int bucket(long nowNanos) {
    Second known = current;
    if (known != null && known.holds(nowNanos)) {
      return known.bucket;
    }
    long epoch = Math.floorDiv(nowNanos, BUCKET_NANOS);
    int i = (int) Math.floorMod(epoch, (long) BUCKETS);
    long seen = bucketEpoch.get(i);
    if (seen != epoch) {
      roll(i, seen, epoch);
    }
    if (bucketEpoch.get(i) == epoch && (known == null || epoch > known.epoch)) {
      current = new Second(epoch, epoch * BUCKET_NANOS, i);
    }
    return i;
  }

  /** Empties a bucket for a new second; a count racing with the roll may land in either second. */
  private void roll(int i, long seen, long epoch) {
    rolling.lock();
    try {
      if (bucketEpoch.get(i) == seen && seen < epoch) {
        first[i].reset();
        second[i].reset();
        bucketEpoch.set(i, epoch);
      }
    } finally {
      rolling.unlock();
    }
  }
}
