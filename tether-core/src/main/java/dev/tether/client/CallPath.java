package dev.tether.client;

import dev.tether.CallPhase;
import dev.tether.LoadBalancing;
import dev.tether.TetherException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The path of every call from proxy to connection, first attempt and retries: a pinned proxy's
 * cached connection, a session's connection, a node a strategy picks, or a connection the finder
 * opens. Retries walk the endpoints this round has not tried, then wait for the next round per
 * {@link RetryRounds}; retry decisions and waits run on the control executor.
 */
final class CallPath {
  private final ClientRuntime runtime;
  private final ConnectionFinder finder;
  private final RetryRounds rounds;
  private final Sessions sessions;

  CallPath(ClientRuntime runtime, ConnectionFinder finder, RetryRounds rounds) {
    this.runtime = runtime;
    this.finder = finder;
    this.rounds = rounds;
    this.sessions = new Sessions(runtime, finder);
  }

  /** True when calls are spread over nodes by a strategy rather than pinned to one connection. */
  static boolean routesOverNodes(ProxySettings settings) {
    return settings.loadBalancing() != LoadBalancing.PINNED && settings.session() == null;
  }

  /** The first attempt; the hot path when the proxy's cached connection is usable. */
  void start(Invocation inv) {
    if (inv.settings().session() != null) {
      sessions.start(inv);
      return;
    }
    if (routesOverNodes(inv.settings())) {
      startOnNode(inv, Set.of());
      return;
    }
    RequestChannel cached = inv.settings().connectionCached() ? inv.binding.usable() : null;
    if (cached != null) {
      runtime.hand(inv, cached);
      return;
    }
    whenConnected(inv, finder.find(inv.settings(), inv.binding, inv.deadlineNanos()))
        .whenComplete(
            (connection, failure) -> {
              if (failure != null) {
                inv.onConnectFailed(ClientRuntime.unwrap(failure));
              } else {
                runtime.hand(inv, connection);
              }
            });
  }

  /**
   * {@code connecting} is the call's connection being found: when it is not there at once the call
   * waits, and its clock records a CONNECTING phase (the deadline learns the endpoint).
   */
  private static CompletableFuture<RequestChannel> whenConnected(
      Invocation inv, CompletableFuture<RequestChannel> connecting) {
    if (!connecting.isDone()) {
      inv.waitsIn(CallPhase.Kind.CONNECTING, null);
    }
    return connecting;
  }

  private void startOnNode(Invocation inv, Set<ConnectionKey> exclude) {
    NodeRouter router = runtime.routerFor(inv.settings(), inv.binding);
    whenConnected(inv, router.route(inv.settings(), exclude, inv.deadlineNanos()))
        .whenComplete(
            (connection, failure) -> {
              if (failure != null) {
                inv.onConnectFailed(ClientRuntime.unwrap(failure));
              } else {
                inv.routedBy(router);
                runtime.hand(inv, connection);
              }
            });
  }

  /**
   * Sends a call again after a retryable failure (on the control executor): to the endpoints this
   * round has not tried yet, and once every endpoint was tried, after the next round's wait, to all
   * of them again (re-resolved); when no round is left, the call fails with its latest cause.
   */
  void retry(Invocation inv) {
    runtime.control().assertInExecutor();
    if (inv.isFinished()) {
      return; // the deadline or a cancel ended it while it waited
    }
    List<Candidate> untried;
    try {
      untried = inv.untried(rounds.candidates(inv.settings()));
    } catch (TetherException e) {
      inv.fail(e);
      return;
    }
    if (untried.isEmpty()) {
      startNextRound(inv);
      return;
    }
    if (routesOverNodes(inv.settings())) {
      startOnNode(inv, inv.history().tried());
      return;
    }
    whenConnected(inv, finder.findAmong(inv.settings(), inv.binding, untried, inv.deadlineNanos()))
        .whenComplete(
            (connection, failure) -> {
              if (failure == null) {
                runtime.hand(inv, connection);
              } else {
                runtime
                    .control()
                    .execute(
                        () -> inv.onRetryConnectFailed(untried, ClientRuntime.unwrap(failure)));
              }
            });
  }

  /** What became of starting a hedge. */
  enum Start {
    STARTED,
    /** Every endpoint or node already has the call. */
    NOWHERE_ELSE,
    /** There was somewhere to go, but {@code permit} refused (the retry budget is spent). */
    NOT_PERMITTED
  }

  /**
   * Starts a hedge (on the control executor) on an endpoint or node its siblings are not on, asking
   * {@code permit} only once there is such a place.
   */
  Start startElsewhere(Invocation inv, java.util.function.BooleanSupplier permit) {
    runtime.control().assertInExecutor();
    List<Candidate> untried;
    try {
      untried = inv.untried(rounds.candidates(inv.settings()));
    } catch (TetherException e) {
      return Start.NOWHERE_ELSE;
    }
    if (untried.isEmpty()) {
      return Start.NOWHERE_ELSE;
    }
    if (!permit.getAsBoolean()) {
      return Start.NOT_PERMITTED;
    }
    if (routesOverNodes(inv.settings())) {
      startOnNode(inv, inv.history().tried());
    } else {
      finder
          .findAmong(inv.settings(), inv.binding, untried, inv.deadlineNanos())
          .whenComplete(
              (connection, failure) -> {
                if (failure == null) {
                  runtime.hand(inv, connection);
                } else {
                  inv.onConnectFailed(ClientRuntime.unwrap(failure));
                }
              });
    }
    return Start.STARTED;
  }

  private void startNextRound(Invocation inv) {
    Duration wait = rounds.waitBeforeNext(inv.settings(), inv.round());
    if (wait == null) {
      if (inv.history().takeConfiguredFallback()) {
        finder
            .findThroughConfigured(inv.settings(), inv.binding, inv.history().latestCause())
            .whenComplete(
                (connection, failure) -> {
                  if (failure == null) {
                    runtime.hand(inv, connection);
                  } else {
                    runtime.control().execute(() -> inv.fail(inv.history().latestCause()));
                  }
                });
      } else {
        inv.fail(inv.history().latestCause());
      }
      return;
    }
    inv.history().beginNextRound();
    if (!wait.isZero()) {
      inv.waitsIn(CallPhase.Kind.RETRY_DELAY, null);
    }
    rounds.start(wait, () -> retry(inv));
  }
}
