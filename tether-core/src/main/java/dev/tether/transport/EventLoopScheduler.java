package dev.tether.transport;

import dev.tether.spi.Scheduler;
import io.netty.channel.EventLoopGroup;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/** The default scheduler: keeps time with the timers of a runtime's own event loops. */
public final class EventLoopScheduler implements Scheduler {
  private final EventLoopGroup group;

  public EventLoopScheduler(EventLoopGroup group) {
    this.group = group;
  }

  @Override
  public Cancellable schedule(Runnable task, long delayNanos) {
    ScheduledFuture<?> f = group.next().schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    return () -> f.cancel(false);
  }
}
