package dev.tether.client;

import java.util.concurrent.CompletableFuture;

/**
 * A future handed to a caller whose outcome only the call sets: the untyped call itself, a hedged
 * call, a typed call's decoded reply. {@code obtrudeValue} and {@code obtrudeException} throw,
 * since replacing an outcome the runtime already decided would hide what happened on the wire; so
 * do they on the stages made from it ({@code thenApply} and the like), since a typed hedged or
 * batched call hands its caller such a stage. Adds no field: an {@link Invocation} stays as small
 * as a plain CompletableFuture subclass.
 */
abstract class CallFuture<T> extends CompletableFuture<T> {
  static final String OUTCOME_SET_BY_THE_CALL =
      "a Tether call's outcome is set only by the call itself";

  @Override
  public final void obtrudeValue(T value) {
    throw new UnsupportedOperationException(OUTCOME_SET_BY_THE_CALL);
  }

  @Override
  public final void obtrudeException(Throwable ex) {
    throw new UnsupportedOperationException(OUTCOME_SET_BY_THE_CALL);
  }

  @Override
  public <U> CompletableFuture<U> newIncompleteFuture() {
    return new Stage<>();
  }

  /** A stage made from a call's future: its outcome, too, is set only by what it was made from. */
  static final class Stage<T> extends CallFuture<T> {}
}
