package dev.tether.client;

import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * The future a typed asynchronous call hands its caller: completed with the decoded answer by the
 * {@link Invocation} itself when the call ends, with no completion stage in between. Cancelling it
 * cancels the call (CANCEL sent, slot freed), as cancelling an untyped call's future does.
 */
final class DecodedReply<T> extends CallFuture<T> implements BiConsumer<byte[], Throwable> {
  private final ReplyFuture call;
  private final Function<byte[], T> decoder;

  DecodedReply(ReplyFuture call, Function<byte[], T> decoder) {
    this.call = call;
    this.decoder = decoder;
  }

  /** The call's outcome, on the thread that ended it; the decoder's failure fails the future. */
  @Override
  public void accept(byte[] answer, Throwable failure) {
    if (failure != null) {
      completeExceptionally(failure);
      return;
    }
    T value;
    try {
      value = decoder.apply(answer);
    } catch (RuntimeException | Error e) {
      completeExceptionally(e);
      return;
    }
    complete(value);
  }

  @Override
  public boolean cancel(boolean mayInterruptIfRunning) {
    boolean cancelled = super.cancel(mayInterruptIfRunning);
    if (cancelled) {
      call.cancel(mayInterruptIfRunning);
    }
    return cancelled;
  }
}
