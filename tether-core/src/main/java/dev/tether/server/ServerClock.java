package dev.tether.server;

import dev.tether.spi.Scheduler;
import dev.tether.spi.Ticker;
import io.netty.channel.Channel;
import java.util.concurrent.RejectedExecutionException;

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
    LoopTimer timer = new LoopTimer(channel, task);
    try {
      timer.scheduled = scheduler.schedule(timer::fire, delayNanos);
    } catch (RejectedExecutionException stopping) {
      // The server's loops are shutting down (a reader-idle check rescheduling as they stop): the
      // connection goes with them, so there is nothing left to time.
      timer.scheduled = () -> {};
    }
    return timer;
  }

  /** One timer of one connection; its fields are read and written on the connection's loop only. */
  private static final class LoopTimer implements Scheduler.Cancellable {
    private final Channel channel;
    private final Runnable task;
    private Scheduler.Cancellable scheduled;
    private boolean cancelled;

    LoopTimer(Channel channel, Runnable task) {
      this.channel = channel;
      this.task = task;
    }

    /** On the scheduler's thread: hop to the owner. */
    void fire() {
      try {
        channel.eventLoop().execute(this::runIfCurrent);
      } catch (RejectedExecutionException loopStopped) {
        // The server closed its loops; the connection died with them.
      }
    }

    private void runIfCurrent() {
      if (!cancelled) {
        task.run();
      }
    }

    @Override
    public void cancel() {
      cancelled = true;
      scheduled.cancel();
    }
  }
}
