package dev.tether.client;

import dev.tether.ConnectFailedException;
import dev.tether.ConnectTimeoutException;
import dev.tether.Endpoint;
import dev.tether.IncompatibleServerException;
import dev.tether.TetherException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Finds or opens the connection for a pinned proxy (the endpoint-selection behaviour): a cached
 * proxy reuses a pooled connection to one of its endpoints; otherwise the endpoints are tried in
 * selection order, round after round per {@link RetryRounds}. What to do is decided first, as a
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

    /**
     * Walk these endpoints in order; {@code inRounds}: then the further rounds {@link RetryRounds}
     * allows.
     */
    record Walk(List<Candidate> candidates, boolean inRounds) implements Plan {}

    /** Selection left nothing to try. */
    record Fail(TetherException cause) implements Plan {}
  }

  private final EndpointSelector selector;
  private final ConnectionPool pool;
  private final RetryRounds rounds;
  private final TopologyViews topologies;
  private final ClientRuntime runtime;

  ConnectionFinder(
      ClientRuntime runtime,
      EndpointSelector selector,
      ConnectionPool pool,
      RetryRounds rounds,
      TopologyViews topologies) {
    this.runtime = runtime;
    this.selector = selector;
    this.pool = pool;
    this.rounds = rounds;
    this.topologies = topologies;
  }

  /** Decides how to find a connection for {@code settings}, without opening anything. */
  Plan plan(ProxySettings settings) {
    return plan(settings, true);
  }

  /**
   * {@code reuseAny}: reuse a pooled connection to any of the endpoints (Ice's rule); false after
   * the proxy's connection was replaced for its age: only the first endpoint in selection order may
   * be reused, so that the selection is applied afresh.
   */
  private Plan plan(ProxySettings settings, boolean reuseAny) {
    List<Candidate> candidates;
    try {
      candidates = rounds.candidates(settings);
    } catch (TetherException e) {
      return new Plan.Fail(e);
    }
    return planFor(settings, candidates, true, reuseAny);
  }

  private Plan planFor(
      ProxySettings settings, List<Candidate> selected, boolean inRounds, boolean reuseAny) {
    List<Candidate> candidates = pool.healthyFirst(selected, settings.connectionId());
    if (settings.connectionCached()) {
      for (Candidate c : candidates) {
        RequestChannel existing = pool.existing(c.key(settings.connectionId()));
        if (existing != null && isCompatible(settings, existing)) {
          return new Plan.Reuse(existing, new Plan.Walk(candidates, inRounds));
        }
        if (!reuseAny) {
          break;
        }
      }
    }
    return new Plan.Walk(candidates, inRounds);
  }

  /** Finds a connection for the proxy and caches it in its binding. */
  CompletableFuture<RequestChannel> find(
      ProxySettings settings, ProxyBinding binding, long deadlineNanos) {
    return carryOut(
        new Finding(settings, binding, true, deadlineNanos),
        plan(settings, !binding.lostToRotation()));
  }

  /**
   * Finds a connection among {@code candidates} only, in one round: a retry's untried endpoints.
   */
  CompletableFuture<RequestChannel> findAmong(
      ProxySettings settings,
      ProxyBinding binding,
      List<Candidate> candidates,
      long deadlineNanos) {
    // One round of a retry: its rounds, not this walk, decide when to go back to the configured
    // servers.
    return carryOut(
        new Finding(settings, binding, false, deadlineNanos),
        planFor(settings, candidates, false, true));
  }

  /**
   * Goes back to the proxy's configured servers once every server of its cluster view has failed
   * its reroute retries (the client-reroute behaviour): a connection manager among them may know a
   * newer view. Fails at once when no view is in force, since the configured servers are what was
   * just tried.
   */
  CompletableFuture<RequestChannel> findThroughConfigured(
      ProxySettings settings, ProxyBinding binding, TetherException viewFailure) {
    if (topologies.failoverOrder(settings.fixedEndpoints()) == null) {
      return CompletableFuture.failedFuture(viewFailure);
    }
    Finding finding = new Finding(settings, binding, false, 0);
    return finding.walkConfigured(viewFailure).thenCompose(finding::settle);
  }

  private CompletableFuture<RequestChannel> carryOut(Finding finding, Plan plan) {
    return finding.connect(plan).thenCompose(finding::settle);
  }

  /**
   * One search for a proxy's connection: connect by a plan, then settle on the connection once its
   * server's view is known. A server outside the view it announces is a connection manager: the
   * search goes on to the view's primary (then alternates). When the whole view fails, the
   * configured servers are asked once more per search (a manager may know a newer view by then);
   * one that announces the view that just failed is used itself, so the search cannot loop.
   */
  private final class Finding {
    /** A manager may point at another manager, once; a third hop is taken as a loop. */
    private static final int MAX_MANAGER_HOPS = 2;

    private final ProxySettings settings;
    private final ProxyBinding binding;

    /**
     * The call's deadline (0: none): a wait for a backing-off endpoint's next attempt ends there.
     */
    private final long deadlineNanos;

    private int hopsLeft = MAX_MANAGER_HOPS;

    /**
     * True once this search walked a cluster view's servers in failover order, primary first: what
     * it then connected to is the best the view has, even when that is an alternate.
     */
    private boolean walkedView;

    private boolean configuredWalked;

    /**
     * The view every server of which failed before the configured servers were walked again, or
     * null.
     */
    private List<Endpoint> failedView;

    Finding(
        ProxySettings settings,
        ProxyBinding binding,
        boolean mayWalkConfigured,
        long deadlineNanos) {
      this.settings = settings;
      this.deadlineNanos = deadlineNanos;
      this.binding = binding;
      this.configuredWalked = !mayWalkConfigured;
    }

    CompletableFuture<RequestChannel> connect(Plan plan) {
      if (plan instanceof Plan.Walk
          && topologies.failoverOrder(settings.fixedEndpoints()) != null) {
        walkedView = true;
      }
      if (plan instanceof Plan.Reuse r) {
        // RetryPolicy fails a call on a connect failure because establishment walked every endpoint
        // first; a reused connection that was still connecting and failed has walked none.
        return r.connection()
            .ready()
            .handle(
                (c, failure) ->
                    failure == null ? CompletableFuture.completedFuture(c) : walk(r.fallback()))
            .thenCompose(f -> f);
      }
      if (plan instanceof Plan.Walk w) {
        return walk(w);
      }
      return CompletableFuture.failedFuture(((Plan.Fail) plan).cause());
    }

    private CompletableFuture<RequestChannel> walk(Plan.Walk w) {
      CompletableFuture<RequestChannel> walked =
          new EndpointWalk(settings, w.candidates(), w.inRounds(), true, deadlineNanos).start();
      if (configuredWalked) {
        return walked;
      }
      // Without a view the walk was over the configured servers already.
      return walked.exceptionallyCompose(
          failure ->
              topologies.failoverOrder(settings.fixedEndpoints()) == null
                  ? CompletableFuture.failedFuture(failure)
                  : walkConfigured(ClientRuntime.unwrap(failure)));
    }

    /**
     * One round over the configured servers, ignoring the view; fails with {@code viewFailure}
     * first.
     */
    CompletableFuture<RequestChannel> walkConfigured(TetherException viewFailure) {
      configuredWalked = true;
      failedView = topologies.failoverOrder(settings.fixedEndpoints());
      List<Candidate> configured;
      try {
        configured = selector.select(settings);
      } catch (TetherException e) {
        return CompletableFuture.failedFuture(viewFailure);
      }
      return new EndpointWalk(settings, configured, false, false, deadlineNanos)
          .start()
          .exceptionallyCompose(
              failure -> {
                viewFailure.addSuppressed(ClientRuntime.unwrap(failure));
                return CompletableFuture.failedFuture(viewFailure);
              });
    }

    /**
     * One walk over the view in force, primary first, without reusing a pooled connection first;
     * {@code c} when selection fails.
     */
    private CompletableFuture<RequestChannel> walkInOrder(RequestChannel c) {
      List<Candidate> order;
      try {
        order = pool.healthyFirst(rounds.candidates(settings), settings.connectionId());
      } catch (TetherException e) {
        walkedView = true;
        return CompletableFuture.completedFuture(c);
      }
      return connect(new Plan.Walk(order, true));
    }

    /**
     * Caches {@code c} for the proxy, or moves on when its server is a connection manager, or an
     * alternate reached before the search walked the view primary first.
     */
    CompletableFuture<RequestChannel> settle(RequestChannel c) {
      List<Endpoint> seeds = settings.fixedEndpoints();
      // Whether the view in force made us use an alternate, before this server's view replaces it.
      boolean alternate = topologies.isAlternate(seeds, c);
      List<Endpoint> view = topologies.learn(seeds, c);
      boolean viewStillUnreachable = failedView != null && failedView.equals(view);
      if (viewStillUnreachable && TopologyViews.isOutside(view, c)) {
        // The configured server knows no newer view than the one that just failed whole (its view
        // may name addresses this client cannot reach): the server that did answer is better than
        // no server; one that does not serve the call says so itself.
        runtime.reports().onViewUnreachable(settings, c, failedView);
      } else if (hopsLeft > 0 && TopologyViews.isOutside(view, c)) {
        hopsLeft--;
        runtime.reports().onManagerRedirect(settings, c, view);
        // The manager's connection carries no calls of ours; drained, a later walk back to the
        // configured servers opens a fresh one and so hears the manager's newest view.
        c.drain();
        return connect(plan(settings)).thenCompose(this::settle);
      } else if (!walkedView && TopologyViews.isAlternateIn(view, c)) {
        // Connected to an alternate by a cached connection or the proxy's own endpoints, before
        // its view was known: the primary comes first. The alternate stays open, next in line.
        runtime.reports().onPrimaryRedirect(settings, c, view);
        return walkInOrder(c).thenCompose(this::settle);
      }
      binding.cache(c, alternate);
      topologies.follow(seeds, binding, c, view);
      if (alternate) {
        runtime.reports().onReroute(settings, c);
      }
      return CompletableFuture.completedFuture(c);
    }
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

    /**
     * True when the walk goes on for the rounds {@link RetryRounds} allows, false for one round.
     */
    private final boolean inRounds;

    private List<Candidate> candidates;
    private int index;
    private int round;
    private TetherException first;
    private TetherException last;
    private final StringBuilder tried = new StringBuilder();

    /** True while every failure so far was a server outside the proxy's version range. */
    private boolean onlyIncompatible = true;

    /** Endpoints whose certificate names another host: a later round would meet the same one. */
    private final java.util.Set<Endpoint> wrongName = new java.util.HashSet<>();

    /**
     * True when each round selects through the cluster view in force, false for the configured
     * servers.
     */
    private final boolean throughView;

    private final long deadlineNanos;

    EndpointWalk(
        ProxySettings settings,
        List<Candidate> candidates,
        boolean inRounds,
        boolean throughView,
        long deadlineNanos) {
      this.settings = settings;
      this.deadlineNanos = deadlineNanos;
      this.candidates = candidates;
      this.inRounds = inRounds;
      this.throughView = throughView;
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
      pool.obtain(c, settings.connectionId(), settings.waitForReady(), deadlineNanos)
          .whenComplete(
              (conn, failure) -> {
                if (failure == null && !isCompatible(settings, conn)) {
                  recordFailure(
                      c,
                      new IncompatibleServerException(
                          c.endpoint()
                              + " runs version "
                              + ((ClientConnection) conn).welcome().serverVersion()
                              + ", outside "
                              + settings.serverVersion()));
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
      Duration wait = inRounds ? rounds.waitBeforeNext(settings, round) : null;
      if (wait == null) {
        result.completeExceptionally(finalFailure());
        return;
      }
      round++;
      rounds.start(wait, this::again);
    }

    /** The next round selects anew: names re-resolved, a newly learned cluster view in force. */
    private void again() {
      try {
        candidates = throughView ? rounds.candidates(settings) : selector.select(settings);
      } catch (TetherException e) {
        result.completeExceptionally(e);
        return;
      }
      candidates =
          pool.healthyFirst(
              candidates.stream().filter(c -> !wrongName.contains(c.endpoint())).toList(),
              settings.connectionId());
      if (candidates.isEmpty()) {
        result.completeExceptionally(finalFailure());
        return;
      }
      index = 0;
      tryNext();
    }

    private TetherException finalFailure() {
      if (last == null) {
        return new dev.tether.NoEndpointException(
            "no endpoint of " + settings.identity() + " to connect to");
      }
      String message =
          "cannot connect "
              + settings.identity()
              + " after "
              + (round + 1)
              + " round(s); tried "
              + tried
              + "; last cause: "
              + last.getMessage();
      TetherException ex =
          last instanceof ConnectTimeoutException
              ? new ConnectTimeoutException(message, last)
              : onlyIncompatible
                  ? new IncompatibleServerException(message, last)
                  : new ConnectFailedException(message, last);
      if (first != last) {
        ex.addSuppressed(first);
      }
      return ex;
    }
  }
}
