package dev.tether.grpc;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.PlatformDependent;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gathers a connection's writes into as few flushes and loop wake-ups as it can: a flush asked for
 * while the loop reads the client's frames, or runs what the services handed it, waits until that
 * read or run ends, so one flush (one system call, one segment for the client to read) carries the
 * answers to everything it read; and what service threads hand to the loop waits in one queue that
 * one loop task empties, so a unary call's headers, message and trailers wake the loop once, not
 * thrice. A flush asked for elsewhere on the loop runs as a task after those already queued. The
 * calls' listener events started during such a read or run wait for its end too ({@link
 * SerialTasks.Starts}), so what one read brought reaches the executor together. State on the
 * connection's event loop, but {@link #execute} and {@link #lazily} from any thread.
 */
final class WriteBatch implements SerialTasks.Starts {
  private static final Logger log = LoggerFactory.getLogger(WriteBatch.class);

  private final EventExecutor loop;

  /** Flushes the connection now (the HTTP/2 handler's flush: flow-controlled DATA goes too). */
  private final Runnable flushNow;

  /** Handed over by service threads, run in order by one loop task. */
  private final Queue<Runnable> handedOver = PlatformDependent.newMpscQueue();

  /** True from asking the loop to run {@link #handedOver} until that task starts polling. */
  private final AtomicBoolean scheduled = new AtomicBoolean();

  private final Runnable runHandedOver = this::runHandedOver;

  // On the loop only.

  /** A read or a run of handed-over work is under way: flushes wait for its end. */
  private boolean open;

  /** A flush was asked for while {@link #open}. */
  private boolean flushWanted;

  /** A flush task is queued on the loop. */
  private boolean flushQueued;

  private final Runnable queuedFlush = this::queuedFlush;

  /** Calls' events held back during the read or run under way, started at its end. */
  private final List<SerialTasks> heldStarts = new ArrayList<>();

  WriteBatch(EventExecutor loop, Runnable flushNow) {
    this.loop = loop;
    this.flushNow = flushNow;
  }

  /** Runs {@code task} on the loop: now when called there, else with whatever else waits. */
  void execute(Runnable task) {
    if (loop.inEventLoop()) {
      task.run();
      return;
    }
    later(task);
  }

  /**
   * Runs {@code task} in a later run of handed-over work, even when called on the loop: for work
   * that writes and is told from inside a flush (a call that became ready again), so its writes
   * share that run's one flush instead of flushing each.
   */
  void later(Runnable task) {
    handedOver.add(task);
    if (!scheduled.get() && scheduled.compareAndSet(false, true)) {
      loop.execute(runHandedOver);
    }
  }

  /**
   * Queues {@code task} for the loop's next run of handed-over work without waking the loop: for a
   * write that something certain to follow flushes anyway (a unary response's headers and message
   * before its trailers), as grpc-java's server holds them. Any thread; on the loop it runs now.
   */
  void lazily(Runnable task) {
    if (loop.inEventLoop()) {
      task.run();
      return;
    }
    handedOver.add(task);
  }

  /** During a read or a run of handed-over work, the events wait for its end. */
  @Override
  public boolean holdBack(SerialTasks tasks) {
    if (open && loop.inEventLoop()) {
      heldStarts.add(tasks);
      return true;
    }
    return false;
  }

  /** Hands the events held back to the executor (on the loop). */
  void startHeld() {
    for (int i = 0; i < heldStarts.size(); i++) {
      heldStarts.get(i).handOff();
    }
    heldStarts.clear();
  }

  /**
   * On the loop: flushes at the end of the read or run under way, else in a loop task of its own,
   * after the tasks already queued: service work the loop runs as tasks (DIRECT mode hands each
   * call's events to the loop) then shares one flush instead of flushing each write.
   */
  void flush() {
    if (open) {
      flushWanted = true;
    } else if (!flushQueued) {
      flushQueued = true;
      try {
        loop.execute(queuedFlush);
      } catch (RejectedExecutionException stopping) {
        queuedFlush();
      }
    }
  }

  private void queuedFlush() {
    flushQueued = false;
    flushNow.run();
  }

  /** On the loop: a read begins; its flushes wait for {@link #readComplete}. */
  void reading() {
    open = true;
  }

  /** On the loop: the read burst ended; the caller flushes (Netty's HTTP/2 handler does). */
  void readComplete() {
    open = false;
    flushWanted = false;
    startHeld();
  }

  private void runHandedOver() {
    // Cleared before the first poll: work added after our last poll schedules another run.
    scheduled.set(false);
    // A loop task never runs inside a read, so no batch is open here.
    open = true;
    try {
      Runnable task;
      while ((task = handedOver.poll()) != null) {
        try {
          task.run();
        } catch (RuntimeException e) {
          log.warn("a gRPC call's write failed", e);
        }
      }
    } finally {
      open = false;
      startHeld();
      if (flushWanted) {
        flushWanted = false;
        flushNow.run();
      }
    }
  }
}
