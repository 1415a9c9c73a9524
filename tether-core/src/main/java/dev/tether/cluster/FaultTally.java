package dev.tether.cluster;

import dev.tether.internal.SlidingCounts;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How one node's calls have been ending, as the outlier detector reads it: node faults in a row,
 * and successes and faults of the last few seconds. Written by the calls themselves, on whichever
 * loop finishes them, without a hop or a lock of its own per call beyond the window's; the detector
 * reads it and resets it on the control executor.
 */
final class FaultTally {
  private final AtomicInteger streak = new AtomicInteger();
  private final SlidingCounts recent = new SlidingCounts();

  /** Counts a node fault; returns the streak it makes. */
  int fault(long nowNanos) {
    recent.addSecond(nowNanos);
    return streak.incrementAndGet();
  }

  /** Counts a good call, which ends any streak. */
  void success(long nowNanos) {
    recent.addFirst(nowNanos);
    if (streak.get() != 0) {
      streak.set(0);
    }
  }

  /** Successes first, faults second, of the window ending now. */
  long[] recent(long nowNanos) {
    return recent.sums(nowNanos);
  }

  /** Starts the count afresh: the streak, or everything after an ejection. */
  void resetStreak() {
    streak.set(0);
  }

  void clear() {
    streak.set(0);
    recent.clear();
  }
}
