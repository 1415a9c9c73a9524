package dev.tether.testing;

import dev.tether.spi.Scheduler;
import dev.tether.spi.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The one fake clock behind every module's tests: both the {@link Ticker} and the {@link Scheduler}
 * of a runtime, whose time stands still until {@link #forward(Duration)} moves it and runs every
 * task that fell due, each at its own due time. Thread-safe; tasks run outside its lock. It ships
 * in tether-core's test-fixtures jar (never in the runtime's): core's tests, which cannot depend on
 * the testkit, use it directly, and the testkit's public {@code FakeClock} is this clock under the
 * testkit's name.
 */
public class ManualClock implements Ticker, Scheduler {
  private final PriorityQueue<Task> tasks = new PriorityQueue<>();
  private long nowNanos;

  /** Breaks ties between tasks due at the same time: the first scheduled runs first. */
  private long sequence;

  /** A clock reading {@code startNanos}; any value works, the runtime only looks at differences. */
  public ManualClock(long startNanos) {
    this.nowNanos = startNanos;
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

  /** Moves time on by {@code d} and runs every task due by then, each at its own due time. */
  public void forward(Duration d) {
    long target;
    synchronized (this) {
      target = nowNanos + d.toNanos();
    }
    Task next;
    while ((next = takeDueBy(target)) != null) {
      next.action.run();
    }
  }

  /**
   * The next task due by {@code targetNanos}, with time moved to it; null (time at the target) when
   * none is.
   */
  private synchronized Task takeDueBy(long targetNanos) {
    Task next = tasks.peek();
    if (next == null || next.dueNanos > targetNanos) {
      nowNanos = Math.max(nowNanos, targetNanos);
      return null;
    }
    tasks.poll();
    nowNanos = Math.max(nowNanos, next.dueNanos);
    return next;
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
    List<Duration> out = new ArrayList<>(sorted.size());
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
