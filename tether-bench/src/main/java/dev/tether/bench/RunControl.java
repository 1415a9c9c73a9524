package dev.tether.bench;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The phase of one run, shared by its call slots, and the count of slots that have stopped.
 *
 * <p>The driver thread moves the phase forward; slots read it once per completed call (one volatile
 * read) and count themselves out when they stop, so the driver can wait for the connection to drain
 * before it reads their histograms.
 */
final class RunControl {

  enum Phase {
    /** Calls run but are not recorded: the JIT, pools and windows settle. */
    WARMUP,
    /** Completed calls are counted and their latencies recorded. */
    MEASURE,
    /** Slots issue no further call; each counts itself out when its last call returns. */
    STOP
  }

  private final CountDownLatch runningSlots;
  private volatile Phase phase = Phase.WARMUP;

  RunControl(int slots) {
    this.runningSlots = new CountDownLatch(slots);
  }

  Phase phase() {
    return phase;
  }

  /** Moves to {@code next}; the phase only moves forward. */
  void transitionTo(Phase next) {
    if (next.compareTo(phase) <= 0) {
      throw new IllegalStateException("cannot go from " + phase + " to " + next);
    }
    phase = next;
  }

  /** Called once by each slot when it has stopped issuing calls and has none outstanding. */
  void slotStopped() {
    runningSlots.countDown();
  }

  /**
   * Waits up to {@code timeout} for every slot to stop; returns early (true) only when all have,
   * which before {@link Phase#STOP} means that every slot failed.
   */
  boolean awaitAllStopped(Duration timeout) throws InterruptedException {
    return runningSlots.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  long slotsStillRunning() {
    return runningSlots.getCount();
  }
}
