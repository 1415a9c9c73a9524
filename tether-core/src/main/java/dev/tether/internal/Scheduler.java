package dev.tether.internal;

import io.netty.channel.EventLoopGroup;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs tasks after a delay. The runtime schedules every timed decision (reconnects, retry
 * intervals, invocation timeouts) through one, so tests can substitute a fake clock that runs due
 * tasks when told to.
 */
@FunctionalInterface
public interface Scheduler {
  /** Runs {@code task} once after {@code delayNanos}; the handle cancels it. */
  Cancellable schedule(Runnable task, long delayNanos);

  /** A scheduled task that can still be called off. */
  @FunctionalInterface
  interface Cancellable {
    void cancel();
  }

  /** Schedules on the event loops of {@code group}. */
  static Scheduler on(EventLoopGroup group) {
    return (task, delayNanos) -> {
      ScheduledFuture<?> f = group.next().schedule(task, delayNanos, TimeUnit.NANOSECONDS);
      return () -> f.cancel(false);
    };
  }
}
