package dev.tether.client;

import dev.tether.TetherException;
import dev.tether.codec.BlockingReply;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.locks.LockSupport;

/**
 * The caller's side of an untyped call: the future it holds, and who else hears of the outcome
 * without a completion stage of its own: the caller's thread blocked in {@link #awaitReply()},
 * parked on the future itself so a blocking call allocates no waiter node, or a typed call's
 * {@link DecodedReply}. Its one field keeps an {@link Invocation} at 64 bytes.
 */
abstract class ReplyFuture extends CallFuture<byte[]> implements BlockingReply {
  /**
   * The caller's thread blocked in {@link #awaitReply()}, or a typed call's {@link DecodedReply}
   * (set before the call starts). Never both, since a typed asynchronous call's caller waits on
   * its DecodedReply, which keeps this call to itself. Volatile since the completing thread reads it.
   */
  private volatile Object watcher;

  /** What the call is, for the message of an interrupted wait. */
  abstract String describe();

  /**
   * Has {@code listener} (a typed call's {@link DecodedReply}) told of the outcome once this
   * future has it, which so needs no completion stage of its own; before the call starts only.
   */
  final void reportTo(DecodedReply<?> listener) {
    watcher = listener;
  }

  /** The future has its outcome: the blocked caller wakes, the typed call's reply hears it. */
  final void notifyEnded(byte[] answer, Throwable failure) {
    Object w = watcher;
    if (w instanceof Thread waiter) {
      LockSupport.unpark(waiter);
    } else if (w instanceof DecodedReply<?> listener) {
      listener.accept(answer, failure);
    }
  }

  /** Waits for the answer parked on this future; rethrows Tether's exceptions unwrapped. */
  @Override
  public final byte[] awaitReply() {
    // A call that reports to a listener keeps the field for it; its caller waits as join() does.
    if (!isDone() && watcher == null) {
      watcher = Thread.currentThread();
      while (!isDone()) {
        LockSupport.park(this);
        if (Thread.interrupted()) {
          watcher = null;
          Thread.currentThread().interrupt();
          throw new TetherException("interrupted while waiting for " + describe());
        }
      }
      watcher = null;
    }
    try {
      return join();
    } catch (CompletionException | CancellationException e) {
      Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
      throw cause instanceof RuntimeException re ? re : new TetherException(String.valueOf(cause), cause);
    }
  }
}
