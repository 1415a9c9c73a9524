package dev.tether.testkit;

import dev.tether.internal.ManualClock;
import dev.tether.spi.Scheduler;
import dev.tether.spi.Ticker;
import java.time.Duration;
import java.util.List;

/**
 * A clock for tests that is both the {@link Ticker} and the {@link Scheduler} of a runtime: time
 * stands still until {@link #forward(Duration)} moves it, which runs every task that fell due, in
 * order. "Forward 9 ms: nothing; 1 ms more: the reconnect runs." Thread-safe. It is the same clock
 * tether-core's own tests run on, so a timing rule behaves alike in both.
 */
public final class FakeClock implements Ticker, Scheduler {
  private final ManualClock clock;

  /** A clock reading {@code startNanos}; any value works, the runtime only looks at differences. */
  public FakeClock(long startNanos) {
    this.clock = new ManualClock(startNanos);
  }

  public FakeClock() {
    this(1_000_000_000_000L);
  }

  @Override
  public long nanoTime() {
    return clock.nanoTime();
  }

  @Override
  public Cancellable schedule(Runnable task, long delayNanos) {
    return clock.schedule(task, delayNanos);
  }

  /** Moves time on and runs every task due by then, each at its own due time. */
  public void forward(Duration d) {
    clock.forward(d);
  }

  /** Runs the tasks due now without moving time. */
  public void runDueTasks() {
    clock.runDueTasks();
  }

  /** How many tasks wait to run. */
  public int pendingTasks() {
    return clock.pendingTasks();
  }

  /** The delays, from now, of every waiting task, soonest first. */
  public List<Duration> pendingDelays() {
    return clock.pendingDelays();
  }
}
