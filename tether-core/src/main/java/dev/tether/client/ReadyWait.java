package dev.tether.client;

import dev.tether.TetherException;
import dev.tether.internal.SerialExecutor;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The end of a walk for a call that waits for ready: once its rounds are over without a connection,
 * the call follows each of its keys' next attempts, attempt after attempt, and takes the first key
 * that is ready. Only the call's deadline or the runtime's close ends the wait, so a pinned proxy
 * waits as a load-balanced one does, and the deadline ends it with its timeline. A key whose next
 * attempt comes after the deadline is left alone. Control executor only.
 */
final class ReadyWait {
  private final ConnectionPool pool;
  private final SerialExecutor control;
  private final BooleanSupplier closing;

  /** True once the call ended (its deadline, a cancel): nothing more to follow for it. */
  private final BooleanSupplier callEnded;

  private final ProxySettings settings;
  private final long deadlineNanos;

  /** What the walk's caller follows: completes with the first ready connection. */
  private CompletableFuture<RequestChannel> leg;

  /**
   * The walk's failure when no key can ever do for the call (every server met runs another version,
   * or there is none): the wait fails with it once it follows no key. Null otherwise.
   */
  private Supplier<TetherException> hopeless;

  /** Keys still followed. */
  private int followed;

  ReadyWait(
      ConnectionPool pool,
      SerialExecutor control,
      BooleanSupplier closing,
      BooleanSupplier callEnded,
      ProxySettings settings,
      long deadlineNanos) {
    this.pool = pool;
    this.control = control;
    this.closing = closing;
    this.callEnded = callEnded;
    this.settings = settings;
    this.deadlineNanos = deadlineNanos;
  }

  /** Follows every key of {@code all} (control executor); {@code hopeless} as its field says. */
  void start(
      List<Candidate> all,
      CompletableFuture<RequestChannel> leg,
      Supplier<TetherException> hopeless) {
    control.assertInExecutor();
    this.leg = leg;
    this.hopeless = hopeless;
    followed = all.size();
    if (all.isEmpty()) {
      leftAlone();
    }
    for (Candidate c : all) {
      follow(c);
    }
  }

  private void follow(Candidate c) {
    ConnectionSupervisor s = pool.supervisor(c, settings.connectionId());
    s.obtain(c, true, deadlineNanos)
        .whenComplete(
            (connection, failure) ->
                control.execute(() -> onAttemptOver(c, s, connection, failure)));
  }

  /** One key's attempt ended (control executor): ready, or follow its next one. */
  private void onAttemptOver(
      Candidate c, ConnectionSupervisor s, RequestChannel connection, Throwable failure) {
    if (leg.isDone()) {
      return; // another key was ready first
    }
    if (failure == null && settings.acceptsServerOf(connection)) {
      leg.complete(connection);
    } else if (closing.getAsBoolean()) {
      leg.completeExceptionally(CallFailures.unwrap(failure != null ? failure : closed()));
    } else if (failure == null || comesTooLate(s) || callEnded.getAsBoolean()) {
      leftAlone();
    } else {
      follow(c);
    }
  }

  /** The key backs off past the call's deadline: following it would only fail again at once. */
  private boolean comesTooLate(ConnectionSupervisor s) {
    return deadlineNanos != 0
        && s.state() == ConnectionSupervisor.State.TRANSIENT_FAILURE
        && s.nextAttemptNanos() - deadlineNanos > 0;
  }

  /** A key no longer followed: with none left and no hope, the call fails as its walk does. */
  private void leftAlone() {
    if (--followed <= 0 && hopeless != null) {
      leg.completeExceptionally(hopeless.get());
    }
  }

  private static TetherException closed() {
    return new TetherException("the Tether runtime is closed");
  }
}
