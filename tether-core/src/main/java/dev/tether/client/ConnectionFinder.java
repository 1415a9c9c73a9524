package dev.tether.client;

import dev.tether.ConnectFailedException;
import dev.tether.ConnectTimeoutException;
import dev.tether.IncompatibleServerException;
import dev.tether.TetherException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Finds or opens the connection for a pinned proxy (seed 000, 36.3): a cached proxy reuses a
 * pooled connection to one of its endpoints; otherwise the endpoints are tried in selection
 * order, round after round per {@link RetryRounds}. What to do is decided first, as a
 * {@link Plan} value, then carried out.
 */
final class ConnectionFinder {
  /** What finding a connection for a proxy comes to. */
  sealed interface Plan {
    /**
     * A pooled connection already serves one of the proxy's endpoints; it may still be connecting,
     * and if that fails, {@code fallback} walks the endpoints as if it had not been there.
     */
    record Reuse(RequestChannel connection, Walk fallback) implements Plan {}

    /** Walk these endpoints in order, with these waits before each extra round. */
    record Walk(List<Candidate> candidates, List<Duration> roundWaits) implements Plan {}

    /** Selection left nothing to try. */
    record Fail(TetherException cause) implements Plan {}
  }

  private final EndpointSelector selector;
  private final ConnectionPool pool;
  private final RetryRounds rounds;
  private final TopologyViews topologies;
  private final ClientRuntime runtime;

  ConnectionFinder(ClientRuntime runtime, EndpointSelector selector, ConnectionPool pool, RetryRounds rounds,
      TopologyViews topologies) {
    this.runtime = runtime;
    this.selector = selector;
    this.pool = pool;
    this.rounds = rounds;
    this.topologies = topologies;
  }

  /** Decides how to find a connection for {@code settings}, without opening anything. */
  Plan plan(ProxySettings settings) {
    List<Candidate> candidates;
    try {
      candidates = selector.select(rounds.effective(settings));
    } catch (TetherException e) {
      return new Plan.Fail(e);
    }
    return planFor(settings, candidates, rounds.waits(settings));
  }

  private Plan planFor(ProxySettings settings, List<Candidate> candidates, List<Duration> roundWaits) {
    if (settings.connectionCached()) {
      for (Candidate c : candidates) {
        RequestChannel existing = pool.existing(c.key(settings.connectionId()));
        if (existing != null && isCompatible(settings, existing)) {
          return new Plan.Reuse(existing, new Plan.Walk(candidates, roundWaits));
        }
      }
    }
    return new Plan.Walk(candidates, roundWaits);
  }

  /** Finds a connection for the proxy and caches it in its binding. */
  CompletableFuture<RequestChannel> find(ProxySettings settings, ProxyBinding binding) {
    return carryOut(settings, binding, plan(settings));
  }

  /** Finds a connection among {@code candidates} only, in one round: a retry's untried endpoints. */
  CompletableFuture<RequestChannel> findAmong(ProxySettings settings, ProxyBinding binding, List<Candidate> candidates) {
    return carryOut(settings, binding, planFor(settings, candidates, List.of()));
  }

  private CompletableFuture<RequestChannel> carryOut(ProxySettings settings, ProxyBinding binding, Plan plan) {
    CompletableFuture<RequestChannel> found;
    if (plan instanceof Plan.Reuse r) {
      // RetryPolicy fails a call on a connect failure because establishment walked every endpoint
      // first; a reused connection that was still connecting and failed has walked none.
      found = r.connection().ready().handle((c, failure) -> failure == null
              ? CompletableFuture.completedFuture(c)
              : new EndpointWalk(settings, r.fallback().candidates(), r.fallback().roundWaits()).start())
          .thenCompose(f -> f);
    } else if (plan instanceof Plan.Walk w) {
      found = new EndpointWalk(settings, w.candidates(), w.roundWaits()).start();
    } else {
      found = CompletableFuture.failedFuture(((Plan.Fail) plan).cause());
    }
    return found.thenApply(c -> {
      // Whether the view in force made us use an alternate, before this server's view replaces it.
      boolean alternate = topologies.isAlternate(settings.fixedEndpoints(), c);
      binding.cache(c, alternate);
      topologies.learn(settings.fixedEndpoints(), c);
      if (alternate) {
        runtime.onReroute(settings, c);
      }
      return c;
    });
  }

  /**
   * True when the server behind {@code c} satisfies the proxy's version range (or it has none). A
   * connection still in its handshake is not compatible yet: its version is unknown until WELCOME,
   * so a call waits for {@code ready()} and asks again rather than land on an out-of-range server.
   */
  static boolean isCompatible(ProxySettings settings, RequestChannel c) {
    if (settings.serverVersion() == null || !(c instanceof ClientConnection cc)) {
      return true;
    }
    dev.tether.protocol.Welcome w = cc.welcome();
    return w != null && settings.serverVersion().contains(w.serverVersion());
  }

  /** One walk over a proxy's endpoints, in rounds, until a connection is ready. */
  private final class EndpointWalk {
    private final CompletableFuture<RequestChannel> result = new CompletableFuture<>();
    private final ProxySettings settings;
    private final List<Duration> roundWaits;
    private List<Candidate> candidates;
    private int index;
    private int round;
    private TetherException first;
    private TetherException last;
    private final StringBuilder tried = new StringBuilder();
    /** True while every failure so far was a server outside the proxy's version range. */
    private boolean onlyIncompatible = true;
    /** Endpoints whose certificate names another host: a later round would meet the same one. */
    private final java.util.Set<dev.tether.Endpoint> wrongName = new java.util.HashSet<>();

    EndpointWalk(ProxySettings settings, List<Candidate> candidates, List<Duration> roundWaits) {
      this.settings = settings;
      this.candidates = candidates;
      this.roundWaits = roundWaits;
    }

    CompletableFuture<RequestChannel> start() {
      tryNext();
      return result;
    }

    private void tryNext() {
      if (index == candidates.size()) {
        nextRound();
        return;
      }
      Candidate c = candidates.get(index++);
      pool.obtain(c, settings.connectionId()).whenComplete((conn, failure) -> {
        if (failure == null && !isCompatible(settings, conn)) {
          recordFailure(c, new IncompatibleServerException(c.endpoint() + " runs version "
              + ((ClientConnection) conn).welcome().serverVersion() + ", outside " + settings.serverVersion()));
          tryNext();
        } else if (failure == null) {
          result.complete(conn);
        } else {
          recordFailure(c, ClientRuntime.unwrap(failure));
          tryNext();
        }
      });
    }

    private void recordFailure(Candidate c, TetherException failure) {
      onlyIncompatible &= failure instanceof IncompatibleServerException;
      if (dev.tether.transport.PeerNameMismatchException.isCauseOf(failure)) {
        wrongName.add(c.endpoint());
      }
      tried.append(tried.length() == 0 ? "" : ", ").append(c.endpoint());
      if (first == null) {
        first = failure;
      } else if (failure != first) {
        first.addSuppressed(failure);
      }
      last = failure;
    }

    private void nextRound() {
      if (round >= roundWaits.size()) {
        result.completeExceptionally(finalFailure());
        return;
      }
      Duration wait = roundWaits.get(round++);
      if (wait.isZero()) {
        again();
      } else {
        runtime.scheduleOnControl(this::again, wait);
      }
    }

    /** The next round selects anew: names re-resolved, a newly learned cluster view in force. */
    private void again() {
      try {
        candidates = selector.select(rounds.effective(settings));
      } catch (TetherException e) {
        result.completeExceptionally(e);
        return;
      }
      candidates = candidates.stream().filter(c -> !wrongName.contains(c.endpoint())).toList();
      if (candidates.isEmpty()) {
        result.completeExceptionally(finalFailure());
        return;
      }
      index = 0;
      tryNext();
    }

    private TetherException finalFailure() {
      if (last == null) {
        return new dev.tether.NoEndpointException("no endpoint of " + settings.identity() + " to connect to");
      }
      String message = "cannot connect " + settings.identity() + " after " + (round + 1)
          + " round(s); tried " + tried + "; last cause: " + last.getMessage();
      TetherException ex = last instanceof ConnectTimeoutException
          ? new ConnectTimeoutException(message, last)
          : onlyIncompatible ? new IncompatibleServerException(message, last)
          : new ConnectFailedException(message, last);
      if (first != last) {
        ex.addSuppressed(first);
      }
      return ex;
    }
  }
}
