package dev.tether.server;

import dev.tether.spi.Scheduler;
import dev.tether.spi.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The smallest clock core's tests need (the testkit's FakeClock is out of reach of them): time
 * moves only on {@link #advance}, which runs the tasks that fell due. Thread-safe, because a
 * runtime reads it from its event loops while the test moves it.
 */
public final class ManualClock implements Ticker, Scheduler {
  private record Due(long atNanos, Runnable task) {}

  private final List<Due> tasks = new ArrayList<>();
  private long now = 1_000_000_000L;

  @Override
  public synchronized long nanoTime() {
    return now;
  }

  @Override
  public synchronized Cancellable schedule(Runnable task, long delayNanos) {
    Due due = new Due(now + delayNanos, task);
    tasks.add(due);
    return () -> cancel(due);
  }

  private synchronized void cancel(Due due) {
    tasks.remove(due);
  }

  /** Moves time on, then runs (outside the lock) every task due by then. */
  public void advance(Duration d) {
    List<Runnable> due = new ArrayList<>();
    synchronized (this) {
      now += d.toNanos();
      tasks.removeIf(t -> t.atNanos() <= now && due.add(t.task()));
    }
    due.forEach(Runnable::run);
  }

  /** Delays from now of the tasks waiting, in the order they were scheduled. */
  public synchronized List<Duration> pending() {
    return tasks.stream().map(t -> Duration.ofNanos(t.atNanos() - now)).toList();
  }
}
