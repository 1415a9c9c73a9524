package dev.tether.client;

import dev.tether.Attempt;
import dev.tether.CallPhase;
import dev.tether.LoadBalancing;
import dev.tether.TetherException;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * The path of every call from proxy to connection, first attempt and retries: a pinned proxy's
 * cached connection, a session's connection, a node a strategy picks, or a connection the call's
 * {@link EndpointWalk} finds. A retry goes on with the same walk, so the rounds over the endpoints
 * are the call's, whichever attempt failed; retry decisions run on the control executor.
 */
final class CallPath {
  private final CallHost host;
  private final ConnectionFinder finder;
  private final Sessions sessions;

  CallPath(CallHost host, ConnectionFinder finder) {
    this.host = host;
    this.finder = finder;
    this.sessions = new Sessions(host, finder);
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
      cached.send(inv);
      return;
    }
    handOver(inv, finder.find(inv), null);
  }

  /**
   * Hands the call to the connection {@code connecting} finds, or fails its attempt with why none
   * was found; {@code router} (null for none) is told of the call's node. When the connection is
   * not there at once the call waits, and its clock records a CONNECTING phase.
   */
  static void handOver(
      Invocation inv, CompletableFuture<RequestChannel> connecting, NodeRouter router) {
    if (!connecting.isDone()) {
      inv.waitsIn(CallPhase.Kind.CONNECTING, null);
    }
    connecting.whenComplete(
        (connection, failure) -> {
          if (failure != null) {
            inv.onConnectFailed(CallFailures.unwrap(failure));
            return;
          }
          if (router != null) {
            inv.extras().routedBy(router);
          }
          connection.send(inv);
        });
  }

  private void startOnNode(Invocation inv, Set<ConnectionKey> exclude) {
    NodeRouter router = inv.binding.router(host);
    handOver(inv, router.route(inv.settings(), exclude, inv.deadlineNanos()), router);
  }

  /**
   * Sends a call again after a retryable failure (on the control executor): its walk goes on, to
   * the endpoints this round has not tried, then round after round; when no round is left, the call
   * fails with its latest cause.
   */
  void retry(Invocation inv) {
    host.control().assertInExecutor();
    if (inv.isFinished()) {
      return; // the deadline or a cancel ended it while it waited
    }
    EndpointWalk walk = finder.walkOf(inv);
    ConnectionKey failedOn = inv.history().takeFailedOn();
    walk.attemptFailedOn(failedOn);
    if (inv.settings().session() != null) {
      sessions.retry(
          inv); // only a call never sent comes here: a session's state lives on one server
    } else if (routesOverNodes(inv.settings())) {
      if (failedOn != null && inv.history().latestOutcome() == Attempt.Outcome.NOT_FOUND) {
        // Deployed without what the call needs: its peers take the service's calls for a while.
        walk.notFoundOn(failedOn);
        inv.binding.router(host).onNotFound(failedOn, inv.settings().identity());
      }
      retryOnNodes(inv, walk);
    } else {
      handOver(inv, finder.resume(inv), null);
    }
  }

  /**
   * A node the strategy picks among those this round has not tried, round after round; when every
   * node tried answered that it lacks the service or operation, the call fails naming them.
   */
  private void retryOnNodes(Invocation inv, EndpointWalk walk) {
    if (inv.isFinished()) {
      return;
    }
    boolean untried;
    try {
      untried = walk.hasUntried();
    } catch (TetherException e) {
      inv.fail(e);
      return;
    }
    if (untried) {
      startOnNode(inv, walk.tried());
    } else if (inv.history().latestOutcome() == Attempt.Outcome.NOT_FOUND
        && walk.everyTriedLacksIt()) {
      inv.fail(
          AttemptOutcomes.notFoundOnAny(
              inv.history().latestCause(),
              inv.settings().identity(),
              inv.operation,
              inv.history().answeredBy(Attempt.Outcome.NOT_FOUND)));
    } else if (!walk.nextRound(() -> retryOnNodes(inv, walk))) {
      CompletableFuture<RequestChannel> configured = finder.throughConfigured(inv);
      if (configured == null) {
        inv.fail(inv.history().latestCause());
      } else {
        handOver(inv, configured, null);
      }
    }
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
   * Starts a hedge (on the control executor) on an endpoint or node none of {@code busy} is on,
   * asking {@code permit} only once there is such a place.
   */
  Start startElsewhere(Invocation inv, Set<ConnectionKey> busy, BooleanSupplier permit) {
    host.control().assertInExecutor();
    EndpointWalk walk = finder.walkOf(inv);
    walk.exclude(busy);
    try {
      if (!walk.hasUntried()) {
        return Start.NOWHERE_ELSE;
      }
    } catch (TetherException e) {
      return Start.NOWHERE_ELSE;
    }
    if (!permit.getAsBoolean()) {
      return Start.NOT_PERMITTED;
    }
    if (routesOverNodes(inv.settings())) {
      startOnNode(inv, walk.tried());
    } else {
      handOver(inv, finder.resume(inv), null);
    }
    return Start.STARTED;
  }
}
