package dev.tether.client;

import dev.tether.TetherException;
import dev.tether.codec.BlockingReply;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * The caller's side of an untyped call: the future it holds, and who else hears of the outcome
 * without a completion stage of its own: one thread waiting in {@link #join()}, {@link #get()} or
 * {@link #awaitReply()}, parked on the future itself so that waiting allocates no waiter node, or a
 * typed call's {@link DecodedReply}. It adds one field to an {@link Invocation}.
 */
abstract class ReplyFuture extends CallFuture<byte[]> implements BlockingReply {
  private static final VarHandle WATCHER;

  static {
    try {
      WATCHER = MethodHandles.lookup().findVarHandle(ReplyFuture.class, "watcher", Object.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /**
   * The one thread parked on this future, or a typed call's {@link DecodedReply} (set before the
   * call starts). Never both: a typed asynchronous call's caller waits on its DecodedReply. A
   * second thread that waits while the field is taken waits as CompletableFuture does. Volatile
   * since the completing thread reads it.
   */
  private volatile Object watcher;

  /** What the call is, for the message of an interrupted wait. */
  abstract String describe();

  /**
   * Has {@code listener} (a typed call's {@link DecodedReply}) told of the outcome once this future
   * has it, which so needs no completion stage of its own; before the call starts only.
   */
  final void reportTo(DecodedReply<?> listener) {
    watcher = listener;
  }

  /** The call's own answer; the caller hears of it through {@link #notifyEnded}. */
  final boolean settle(byte[] answer) {
    return super.complete(answer);
  }

  /** The call's own failure; the caller hears of it through {@link #notifyEnded}. */
  final boolean settleExceptionally(Throwable failure) {
    return super.completeExceptionally(failure);
  }

  /** The future has its outcome: the parked thread wakes, the typed call's reply hears it. */
  final void notifyEnded(byte[] answer, Throwable failure) {
    Object w = watcher;
    if (w instanceof Thread waiter) {
      LockSupport.unpark(waiter);
    } else if (w instanceof DecodedReply<?> listener) {
      listener.accept(answer, failure);
    }
  }

  /**
   * The caller's own completion (or {@code completeOnTimeout}'s) wakes a thread parked here too.
   */
  @Override
  public boolean complete(byte[] value) {
    boolean completed = super.complete(value);
    wakeParked();
    return completed;
  }

  /** The caller's own failure (or {@code orTimeout}'s) wakes a thread parked here too. */
  @Override
  public boolean completeExceptionally(Throwable ex) {
    boolean completed = super.completeExceptionally(ex);
    wakeParked();
    return completed;
  }

  /** As CompletableFuture's, through {@link #complete}, so that a thread parked here wakes. */
  @Override
  public CompletableFuture<byte[]> completeAsync(
      Supplier<? extends byte[]> supplier, Executor executor) {
    if (supplier == null || executor == null) {
      throw new NullPointerException();
    }
    executor.execute(
        () -> {
          try {
            complete(supplier.get());
          } catch (Throwable t) {
            completeExceptionally(new CompletionException(t));
          }
        });
    return this;
  }

  @Override
  public CompletableFuture<byte[]> completeAsync(Supplier<? extends byte[]> supplier) {
    return completeAsync(supplier, defaultExecutor());
  }

  private void wakeParked() {
    if (watcher instanceof Thread waiter) {
      LockSupport.unpark(waiter);
    }
  }

  /**
   * Waits as CompletableFuture's join does (an interrupt is kept for later), parked on this future.
   */
  @Override
  public final byte[] join() {
    parkUntilDone(false);
    return super.join();
  }

  /** Waits as CompletableFuture's get does, parked on this future. */
  @Override
  public final byte[] get() throws InterruptedException, ExecutionException {
    parkUntilDone(true);
    if (!isDone() && Thread.interrupted()) {
      throw new InterruptedException();
    }
    return super.get();
  }

  /** Waits for the answer parked on this future; rethrows Tether's exceptions unwrapped. */
  @Override
  public final byte[] awaitReply() {
    parkUntilDone(true);
    if (!isDone() && Thread.currentThread().isInterrupted()) {
      throw new TetherException("interrupted while waiting for " + describe());
    }
    try {
      return join();
    } catch (CompletionException | CancellationException e) {
      Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
      throw cause instanceof RuntimeException re
          ? re
          : new TetherException(String.valueOf(cause), cause);
    }
  }

  /**
   * Parks the calling thread on this future until it is done, when no other thread or listener
   * holds {@link #watcher}; returns at once when one does (the caller then waits as
   * CompletableFuture does). An interrupt ends the wait early when {@code interruptible}, else it
   * is remembered; either way the thread's interrupt status is set again on return.
   */
  private void parkUntilDone(boolean interruptible) {
    if (isDone() || !WATCHER.compareAndSet(this, null, Thread.currentThread())) {
      return;
    }
    boolean interrupted = false;
    try {
      while (!isDone()) {
        LockSupport.park(this);
        if (Thread.interrupted()) {
          interrupted = true;
          if (interruptible) {
            break;
          }
        }
      }
    } finally {
      watcher = null;
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
