package dev.tether.internal;

import java.util.concurrent.locks.ReentrantLock;

/**
 * Bounds retries so a failing cluster is not hit by a retry storm: over a sliding window (ten
 * one-second buckets), retries may not exceed {@code ratio} of the calls made plus {@code
 * floorPerSecond} per second of the window. Thread-safe; counting a call takes no lock, since every
 * call does it. Time comes from the caller.
 */
public final class RetryBudget {
  private final double ratio;
  private final double floorPerSecond;

  /** Calls first, retries second. */
  private final SlidingCounts window = new SlidingCounts();

  /**
   * Makes check-and-take one step; a lock, not a monitor, so a waiting virtual thread frees its
   * carrier.
   */
  private final ReentrantLock taking = new ReentrantLock();

  public RetryBudget(double ratio, double floorPerSecond) {
    this.ratio = ratio;
    this.floorPerSecond = floorPerSecond;
  }

  /** 20% of recent calls plus 10 retries a second. */
  public static RetryBudget standard() {
    return new RetryBudget(0.2, 10);
  }

  /** Counts a first attempt. */
  public void recordCall(long nowNanos) {
    window.addFirst(nowNanos);
  }

  /**
   * Takes one retry from the budget; false when the budget is spent (the retry must not happen).
   */
  public boolean tryRetry(long nowNanos) {
    taking.lock();
    try {
      long[] sums = window.sums(nowNanos);
      if (sums[1] + 1 > ratio * sums[0] + floorPerSecond * SlidingCounts.windowSeconds()) {
        return false;
      }
      window.addSecond(nowNanos);
      return true;
    } finally {
      taking.unlock();
    }
  }
}
