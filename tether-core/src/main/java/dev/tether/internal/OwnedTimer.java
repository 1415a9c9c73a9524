package dev.tether.internal;

import dev.tether.spi.Scheduler;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * One timer task that runs on the thread owning the state it touches: the scheduler only keeps
 * time, and once due the task hops to its owner (a connection's event loop, a control executor).
 * The handle cancels even a task that already hopped: a cancel on the owner's thread is certain
 * never to see the task run; one from another thread still stops a task not yet due.
 */
public final class OwnedTimer implements Scheduler.Cancellable, Runnable {
  private static final VarHandle CANCELLED;

  static {
    try {
      CANCELLED =
          MethodHandles.lookup().findVarHandle(OwnedTimer.class, "cancelled", boolean.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final Executor owner;
  private final Runnable task;

  /** Set once, before the timer is handed out; null stands for "nothing was scheduled". */
  private Scheduler.Cancellable scheduled;

  /** True once the scheduler fired and the task was handed to its owner. */
  private boolean hopped;

  /**
   * Written with release semantics by {@link #cancel()}, from any thread, and read with acquire
   * semantics on the owner: a cancel costs no fence, and one made on the owner is always seen.
   */
  @SuppressWarnings("unused") // through CANCELLED
  private boolean cancelled;

  private OwnedTimer(Executor owner, Runnable task) {
    this.owner = owner;
    this.task = task;
  }

  /**
   * Runs {@code task} on {@code owner} once {@code delayNanos} passed on {@code scheduler}. A
   * scheduler or owner that has shut down (its runtime is closing) runs nothing.
   */
  public static Scheduler.Cancellable schedule(
      Scheduler scheduler, Executor owner, Runnable task, long delayNanos) {
    OwnedTimer timer = new OwnedTimer(owner, task);
    try {
      timer.scheduled = scheduler.schedule(timer, delayNanos);
    } catch (RejectedExecutionException stopping) {
      // The timers stopped with their event loops: a closing runtime plans nothing.
      timer.scheduled = null;
    }
    return timer;
  }

  /**
   * First on the scheduler's thread, where it hops to the owner; then on the owner, where it runs
   * the task unless it was cancelled meanwhile.
   */
  @Override
  public void run() {
    if (!hopped) {
      hopped = true;
      try {
        owner.execute(this);
      } catch (RejectedExecutionException ownerStopped) {
        // The owner's loop shut down with its runtime; nothing is left to act on.
      }
      return;
    }
    if (!(boolean) CANCELLED.getAcquire(this)) {
      task.run();
    }
  }

  @Override
  public void cancel() {
    CANCELLED.setRelease(this, true);
    Scheduler.Cancellable s = scheduled;
    if (s != null) {
      s.cancel();
    }
  }
}
