package dev.tether.server;

import dev.tether.spi.Scheduler;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

/**
 * A piece of another protocol's service work (a gRPC call's listener events) waiting in the
 * server's run queue, as Tether's calls wait there. Such work cannot be answered REFUSED halfway
 * through a call, so work the queue cannot take now is offered again shortly, until the server
 * closes.
 */
final class ProtocolWork implements QueuedWork {
  /** How soon work the queue refused is offered again. */
  private static final long RETRY_NANOS = 1_000_000;

  private final Runnable task;
  private final Executor again;
  private final RunQueue queue;
  private final Scheduler retry;

  private ProtocolWork(Runnable task, Executor again, RunQueue queue, Scheduler retry) {
    this.task = task;
    this.again = again;
    this.queue = queue;
    this.retry = retry;
  }

  /**
   * An executor that puts each task in {@code queue} through {@code enqueue} (straight in, or
   * behind a connection's lane) and starts it as a connection's read burst starts its calls: a
   * drainer wakes, and a stall check on {@code loopTimer} (the connection's loop) wakes another
   * when work waits behind a call that blocks. Refused work is offered again on {@code retry}.
   */
  static Executor through(
      Consumer<QueuedWork> enqueue, RunQueue queue, Scheduler retry, Scheduler loopTimer) {
    return into(enqueue, queue, retry, () -> queue.start(1, loopTimer));
  }

  /**
   * As {@link #through}, for work that may wait: queued without a wake-up of its own, it runs with
   * the next work a drainer is woken for, or within a lazy check's wait (see {@link
   * RunQueue#startLazily}).
   */
  static Executor lazilyThrough(
      Consumer<QueuedWork> enqueue, RunQueue queue, Scheduler retry, Scheduler loopTimer) {
    return into(enqueue, queue, retry, () -> queue.startLazily(loopTimer));
  }

  private static Executor into(
      Consumer<QueuedWork> enqueue, RunQueue queue, Scheduler retry, Runnable start) {
    return new Executor() {
      @Override
      public void execute(Runnable task) {
        enqueue.accept(new ProtocolWork(task, this, queue, retry));
        start.run();
      }
    };
  }

  @Override
  public void run() {
    task.run();
  }

  @Override
  public void refuse() {
    if (queue.isClosed()) {
      return; // the server closes, and the connection with it
    }
    try {
      retry.schedule(() -> again.execute(task), RETRY_NANOS);
    } catch (RejectedExecutionException stopped) {
      // The scheduler stopped with the server.
    }
  }
}
