package dev.tether.cli.demo;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Catches one server at the worst moment for a non-idempotent call: an increment has changed the
 * store and its reply has not left yet. Armed by the scenario thread; sprung by the service thread
 * of the next increment, which then waits (bounded) until the scenario has closed the server, so
 * the reply can only be lost. Single use.
 */
final class IncrementTrap implements Runnable {
  /** Longest a caught service thread waits for the scenario to close its server. */
  private static final Duration HOLD_AT_MOST = Duration.ofSeconds(5);

  private final AtomicBoolean armed = new AtomicBoolean();
  private final CountDownLatch caught = new CountDownLatch(1);
  private final CountDownLatch released = new CountDownLatch(1);

  void arm() {
    armed.set(true);
  }

  /** Runs on a service thread after every increment of its server. */
  @Override
  public void run() {
    if (!armed.compareAndSet(true, false)) {
      return;
    }
    caught.countDown();
    try {
      released.await(HOLD_AT_MOST.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      // The abrupt close interrupts service threads: that is the release we were waiting for.
      Thread.currentThread().interrupt();
    }
  }

  /** True once an increment was caught; false when none came within {@code patience}. */
  boolean awaitCaught(Duration patience) throws InterruptedException {
    boolean wasCaught = caught.await(patience.toNanos(), TimeUnit.NANOSECONDS);
    armed.set(false);
    return wasCaught;
  }

  /** Lets a caught service thread go; its server is closed by now. */
  void release() {
    released.countDown();
  }
}
