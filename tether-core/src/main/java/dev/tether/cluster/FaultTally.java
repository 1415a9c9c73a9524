package dev.tether.cluster;

import dev.tether.internal.SlidingCounts;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How one node's calls have been ending, as the outlier detector reads it: node faults in a row;
 * successes and node faults of the last few seconds; and good and failed answers of the node's last
 * few calls (a failed answer being a node fault or the service's own error), which the detector
 * compares with its peers'. Written by the calls themselves, on whichever loop finishes them,
 * without a hop or a lock of its own per call beyond the windows'; the detector reads it and resets
 * it on the control executor.
 */
final class FaultTally {
  private final AtomicInteger streak = new AtomicInteger();
  private final SlidingCounts recent = new SlidingCounts();
  private final RecentAnswers answers;

  /** True while a comparison with the peers is queued on the control executor: one at a time. */
  private final AtomicBoolean comparing = new AtomicBoolean();

  /** Compares the node with its peers over its last {@code outlierCalls} answers. */
  FaultTally(int outlierCalls) {
    this.answers = new RecentAnswers(outlierCalls);
  }

  /** Counts a node fault; returns the streak it makes. */
  int fault(long nowNanos) {
    recent.addSecond(nowNanos);
    answers.add(true);
    return streak.incrementAndGet();
  }

  /**
   * Counts a call the node answered: good, or ({@code failed}) with the service's own error, which
   * ends a streak of node faults like any answer but counts against the node among its peers.
   */
  void answered(boolean failed, long nowNanos) {
    recent.addFirst(nowNanos);
    answers.add(failed);
    if (streak.get() != 0) {
      streak.set(0);
    }
  }

  /** Successes first, node faults second, of the window ending now. */
  long[] recent(long nowNanos) {
    return recent.sums(nowNanos);
  }

  /** Good answers first, failed answers second, of the node's last calls. */
  long[] answers() {
    return answers.sums();
  }

  /** Claims the one comparison with the peers that may be queued; false when one already is. */
  boolean startComparing() {
    return comparing.compareAndSet(false, true);
  }

  void doneComparing() {
    comparing.set(false);
  }

  /** Starts the count afresh: the streak, or everything after an ejection. */
  void resetStreak() {
    streak.set(0);
  }

  void clear() {
    streak.set(0);
    recent.clear();
    answers.clear();
  }
}
