package dev.tether.grpc;

import dev.tether.spi.Scheduler;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one call's listener events one at a time, in order, on the server's executor, as grpc-java
 * promises a {@code ServerCall.Listener}: never two at once, each seeing what the one before did.
 * The client side ({@code dev.tether.grpc.client}) runs a {@code ClientCall.Listener}'s the same
 * way.
 */
public final class SerialTasks implements Executor {
  private static final Logger log = LoggerFactory.getLogger(SerialTasks.class);

  /** How soon a refused hand-off is tried again. */
  private static final long RETRY_NANOS = 1_000_000;

  private final Executor delegate;

  /** Where a hand-off of events that may wait goes: {@link #delegate} unless the server says. */
  private final Executor lazyDelegate;

  private final Scheduler retry;
  private final Queue<Runnable> queue = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean scheduled = new AtomicBoolean();
  private final Runnable drain = this::drain;

  /** May hold back a hand-off to start it later; null: hand off at once. */
  private final Starts starts;

  /**
   * Where a hand-off may wait: the server's connection holds back those asked for while its event
   * loop reads, and starts them once the read ends, so the events of everything one read brought (a
   * unary call's start, message and half-close) go to the executor together.
   */
  interface Starts {
    /** True when {@code tasks} will be started later through {@link SerialTasks#handOff}. */
    boolean holdBack(SerialTasks tasks);
  }

  /**
   * @param retry keeps time for a hand-off the executor refused (every thread busy)
   */
  public SerialTasks(Executor delegate, Scheduler retry) {
    this(delegate, delegate, retry, null);
  }

  /**
   * @param lazyDelegate where {@link #executeLazily} hands events off: an executor that wakes no
   *     thread for them
   */
  SerialTasks(Executor delegate, Executor lazyDelegate, Scheduler retry, Starts starts) {
    this.delegate = delegate;
    this.lazyDelegate = lazyDelegate;
    this.retry = retry;
    this.starts = starts;
  }

  @Override
  public void execute(Runnable task) {
    queue.add(task);
    if (scheduled.compareAndSet(false, true) && (starts == null || !starts.holdBack(this))) {
      handOff();
    }
  }

  /**
   * As {@link #execute}, for an event that may wait a little (a call's completion, whose client has
   * its answer already): when nothing else of the call waits, it goes to the lazy executor, which
   * runs it with the next work a thread wakes for instead of waking one for it alone.
   */
  void executeLazily(Runnable task) {
    queue.add(task);
    if (scheduled.compareAndSet(false, true)) {
      handOff(lazyDelegate);
    }
  }

  /** Hands the queued events to the executor: one task that runs them all, in order. */
  void handOff() {
    handOff(delegate);
  }

  private void handOff(Executor to) {
    try {
      to.execute(drain);
    } catch (RejectedExecutionException busy) {
      // Every thread is taken: the events wait and are offered again shortly, never run on the
      // event loop, which service code must not block.
      try {
        retry.schedule(() -> handOff(to), RETRY_NANOS);
      } catch (RejectedExecutionException stopped) {
        log.debug("the server stopped: a gRPC call's last events are dropped");
      }
    }
  }

  private void drain() {
    try {
      Runnable task;
      while ((task = queue.poll()) != null) {
        try {
          task.run();
        } catch (Throwable t) {
          log.warn("a gRPC call's event failed", t);
        }
      }
    } finally {
      scheduled.set(false);
      if (!queue.isEmpty() && scheduled.compareAndSet(false, true)) {
        handOff();
      }
    }
  }
}
