package dev.tether.testkit;

import dev.tether.spi.Scheduler;
import dev.tether.spi.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;

/**
 * A clock for tests that is both the {@link Ticker} and the {@link Scheduler} of a runtime: time
 * stands still until {@link #forward(Duration)} moves it, which runs every task that fell due, in
 * order. "Forward 9 ms: nothing; 1 ms more: the reconnect runs." Thread-safe.
 */
public final class FakeClock implements Ticker, Scheduler {
  private final PriorityQueue<Task> tasks = new PriorityQueue<>();
  private long nowNanos;
  private long sequence;

  /** A clock reading {@code startNanos}; any value works, the runtime only looks at differences. */
  public FakeClock(long startNanos) {
    this.nowNanos = startNanos;
  }

  public FakeClock() {
    this(1_000_000_000_000L);
  }

  @Override
  public synchronized long nanoTime() {
    return nowNanos;
  }

  @Override
  public synchronized Cancellable schedule(Runnable task, long delayNanos) {
    Task t = new Task(nowNanos + Math.max(0, delayNanos), sequence++, task);
    tasks.add(t);
    return () -> cancel(t);
  }

  private synchronized void cancel(Task t) {
    tasks.remove(t);
  }

  /** Moves time on and runs every task due by then, each at its own due time. */
  public void forward(Duration d) {
    long target;
    synchronized (this) {
      target = nowNanos + d.toNanos();
    }
    while (true) {
      Task next;
      synchronized (this) {
        next = tasks.peek();
        if (next == null || next.dueNanos > target) {
          nowNanos = target;
          return;
        }
        tasks.poll();
        nowNanos = Math.max(nowNanos, next.dueNanos);
      }
      next.action.run();
    }
  }

  /** Runs the tasks due now without moving time. */
  public void runDueTasks() {
    forward(Duration.ZERO);
  }

  /** How many tasks wait to run. */
  public synchronized int pendingTasks() {
    return tasks.size();
  }

  /** The delays, from now, of every waiting task, soonest first. */
  public synchronized List<Duration> pendingDelays() {
    List<Task> sorted = new ArrayList<>(tasks);
    sorted.sort(null);
    List<Duration> out = new ArrayList<>();
    for (Task t : sorted) {
      out.add(Duration.ofNanos(t.dueNanos - nowNanos));
    }
    return out;
  }

  private record Task(long dueNanos, long seq, Runnable action) implements Comparable<Task> {
    @Override
    public int compareTo(Task o) {
      int byTime = Long.compare(dueNanos, o.dueNanos);
      return byTime != 0 ? byTime : Long.compare(seq, o.seq);
    }
  }
}
