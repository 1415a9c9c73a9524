package dev.tether.client;

import dev.tether.TetherException;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The end of a walk for a call that waits for ready: once its rounds are over without a connection,
 * the call follows each of its keys' next attempts, attempt after attempt, and takes the first key
 * that is ready. Only the call's deadline or the runtime's close ends the wait, so a pinned proxy
 * waits as a load-balanced one does, and the deadline ends it with its timeline. A key whose next
 * attempt comes after the deadline is left alone. Control executor only.
 */
final class ReadyWait {
  private final EndpointWalk walk;
  private final ConnectionPool pool;
  private final CallHost host;
  private final ProxySettings settings;
  private final long deadlineNanos;

  /** What the walk's caller follows: completes with the first ready connection. */
  private final CompletableFuture<RequestChannel> leg;

  /** Keys still followed; at 0 with every server incompatible, the wait fails. */
  private int followed;

  ReadyWait(
      EndpointWalk walk,
      ConnectionPool pool,
      CallHost host,
      ProxySettings settings,
      long deadlineNanos,
      CompletableFuture<RequestChannel> leg) {
    this.walk = walk;
    this.pool = pool;
    this.host = host;
    this.settings = settings;
    this.deadlineNanos = deadlineNanos;
    this.leg = leg;
  }

  /** Follows every key of the proxy's selection now (from any thread; runs on control). */
  void start() {
    host.control().execute(this::followAll);
  }

  private void followAll() {
    List<Candidate> all;
    try {
      all = walk.candidatesNow();
    } catch (TetherException e) {
      leg.completeExceptionally(e);
      return;
    }
    if (all.isEmpty()) {
      leg.completeExceptionally(walk.failure());
      return;
    }
    followed = all.size();
    for (Candidate c : all) {
      follow(c);
    }
  }

  private void follow(Candidate c) {
    ConnectionSupervisor s = pool.supervisor(c, settings.connectionId());
    s.obtain(c, true, deadlineNanos)
        .whenComplete(
            (connection, failure) ->
                host.control().execute(() -> onAttemptOver(c, s, connection, failure)));
  }

  /** One key's attempt ended (control executor): ready, or follow its next one. */
  private void onAttemptOver(
      Candidate c, ConnectionSupervisor s, RequestChannel connection, Throwable failure) {
    if (leg.isDone()) {
      return; // another key was ready first, or the call ended
    }
    if (failure == null && settings.acceptsServerOf(connection)) {
      leg.complete(connection);
    } else if (host.isClosing()) {
      leg.completeExceptionally(CallFailures.unwrap(failure != null ? failure : closed()));
    } else if (failure == null || comesTooLate(s)) {
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

  /**
   * A key no longer followed: when it was the last and every server met runs another version, the
   * call fails as a walk does; else the call's deadline ends it.
   */
  private void leftAlone() {
    if (--followed == 0 && walk.metOnlyIncompatible()) {
      leg.completeExceptionally(walk.failure());
    }
  }

  private static TetherException closed() {
    return new TetherException("the Tether runtime is closed");
  }
}
