package dev.tether.cluster;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One node's last few answers, good or failed, in the order they ended: the figures the outlier
 * detector compares with the node's peers. Counted in calls rather than seconds, so a node that
 * turns sick after a long healthy history stands out within a few dozen of its own calls whatever
 * the call rate. Written by the calls on whichever loop ends them, without a lock.
 */
final class RecentAnswers {
  private static final int EMPTY = 0;
  private static final int GOOD = 1;
  private static final int FAILED = 2;

  private final AtomicIntegerArray slots;
  private final AtomicLong next = new AtomicLong();

  /**
   * Kept beside the slots so a read costs two loads, not a walk. Every change goes through the
   * value a slot's swap returned, so however calls and a clear interleave, each answer is counted
   * in and out exactly once.
   */
  private final AtomicInteger held = new AtomicInteger();

  private final AtomicInteger failed = new AtomicInteger();

  /** Keeps the last {@code size} answers; older ones drop out as new ones come. */
  RecentAnswers(int size) {
    if (size < 1) {
      throw new IllegalArgumentException("a node keeps at least 1 recent answer, got " + size);
    }
    this.slots = new AtomicIntegerArray(size);
  }

  /** Counts an answer, pushing out the oldest when the window is full. */
  void add(boolean failedAnswer) {
    int slot = (int) Math.floorMod(next.getAndIncrement(), (long) slots.length());
    int now = failedAnswer ? FAILED : GOOD;
    account(slots.getAndSet(slot, now), now);
  }

  /** Good answers first, failed answers second, of the answers kept now. */
  long[] sums() {
    int f = failed.get();
    return new long[] {Math.max(0, held.get() - f), f};
  }

  /** Forgets every answer: the node starts afresh, as after an ejection. */
  void clear() {
    for (int i = 0; i < slots.length(); i++) {
      account(slots.getAndSet(i, EMPTY), EMPTY);
    }
  }

  private void account(int was, int now) {
    if (was == EMPTY && now != EMPTY) {
      held.incrementAndGet();
    } else if (was != EMPTY && now == EMPTY) {
      held.decrementAndGet();
    }
    if (was == FAILED) {
      failed.decrementAndGet();
    }
    if (now == FAILED) {
      failed.incrementAndGet();
    }
  }
}
