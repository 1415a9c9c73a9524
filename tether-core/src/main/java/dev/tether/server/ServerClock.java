package dev.tether.server;

import dev.tether.internal.OwnedTimer;
import dev.tether.spi.Scheduler;
import dev.tether.spi.Ticker;
import io.netty.channel.Channel;

/**
 * The server's injected time: its {@link Ticker} and {@link Scheduler}. The scheduler only keeps
 * time; {@link #schedule(Channel, Runnable, long)} hands each task to the channel's event loop,
 * which owns what the task looks at.
 */
record ServerClock(Ticker ticker, Scheduler scheduler) {

  long nanoTime() {
    return ticker.nanoTime();
  }

  /**
   * Runs {@code task} on {@code channel}'s loop after {@code delayNanos}. Cancel on that loop: a
   * cancelled task never runs, even one the scheduler already fired.
   */
  Scheduler.Cancellable schedule(Channel channel, Runnable task, long delayNanos) {
    return OwnedTimer.schedule(scheduler, channel.eventLoop(), task, delayNanos);
  }
}
