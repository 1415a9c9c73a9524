package dev.tether.client;

import dev.tether.Endpoint;
import dev.tether.TetherException;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Finds or opens the connection for a pinned proxy (the endpoint-selection behaviour): a cached
 * proxy reuses a pooled connection to one of its endpoints; otherwise the call's {@link
 * EndpointWalk} goes through the endpoints, round after round, for its first attempt and again for
 * each retry. What to do is decided first, as a {@link Plan} value, then carried out; the
 * connection found is then settled on once its server's cluster view is known.
 */
final class ConnectionFinder {
  /** What finding a connection for a proxy comes to. */
  sealed interface Plan {
    /**
     * A pooled connection already serves one of the proxy's endpoints; it may still be connecting,
     * and if that fails, the walk goes through {@code fallback} as if it had not been there.
     */
    record Reuse(RequestChannel connection, List<Candidate> fallback) implements Plan {}

    /** Walk these endpoints in order, then the further rounds. */
    record Walk(List<Candidate> candidates) implements Plan {}

    /** Selection left nothing to try. */
    record Fail(TetherException cause) implements Plan {}
  }

  private final ConnectionPool pool;
  private final RetryRounds rounds;
  private final TopologyViews topologies;
  private final CallHost host;

  ConnectionFinder(
      CallHost host, ConnectionPool pool, RetryRounds rounds, TopologyViews topologies) {
    this.host = host;
    this.pool = pool;
    this.rounds = rounds;
    this.topologies = topologies;
  }

  /** Decides how to find a connection for {@code settings}, without opening anything. */
  Plan plan(ProxySettings settings) {
    return plan(settings, true);
  }

  /**
   * {@code reuseAny}: reuse a pooled connection to any of the endpoints (Ice's rule), one past its
   * handshake before one still connecting: a call joining a handshake waits for it, however long a
   * server that accepts and never answers HELLO makes it, while a ready connection to another of
   * the proxy's servers would answer now. False after the proxy's connection was replaced for its
   * age: only the first endpoint in selection order may be reused, so that the selection is applied
   * afresh.
   */
  private Plan plan(ProxySettings settings, boolean reuseAny) {
    List<Candidate> candidates;
    try {
      candidates = pool.healthyFirst(rounds.candidates(settings), settings.connectionId());
    } catch (TetherException e) {
      return new Plan.Fail(e);
    }
    if (settings.connectionCached()) {
      RequestChannel connecting = null;
      for (Candidate c : candidates) {
        RequestChannel existing = pool.existing(c.key(settings.connectionId()));
        if (existing != null && settings.acceptsServerOf(existing)) {
          if (existing.ready().isDone()) {
            return new Plan.Reuse(existing, candidates);
          }
          if (connecting == null) {
            connecting = existing;
          }
        }
        if (!reuseAny) {
          break;
        }
      }
      if (connecting != null) {
        return new Plan.Reuse(connecting, candidates);
      }
    }
    return new Plan.Walk(candidates);
  }

  /** The call's walk, made on its first need; by the thread that holds the call. */
  EndpointWalk walkOf(Invocation inv) {
    CallExtras e = inv.extrasIfAny();
    EndpointWalk w = e == null ? null : e.walk();
    if (w == null) {
      w = newWalk(inv.settings(), inv, inv.deadlineNanos(), true);
      inv.extras().walk(w);
    }
    return w;
  }

  private EndpointWalk newWalk(
      ProxySettings settings, Invocation call, long deadlineNanos, boolean throughView) {
    return new EndpointWalk(rounds, pool, host, settings, call, deadlineNanos, throughView);
  }

  /** Finds a connection for a call's first attempt and caches it in the proxy's binding. */
  CompletableFuture<RequestChannel> find(Invocation inv) {
    Finding finding = new Finding(inv.settings(), inv.binding, inv);
    return finding
        .connect(plan(inv.settings(), !inv.binding.lostToRotation()))
        .thenCompose(finding::settle);
  }

  /** Finds a connection for a proxy outside any call (connectAsync, a batch's flush). */
  CompletableFuture<RequestChannel> find(
      ProxySettings settings, ProxyBinding binding, long deadlineNanos) {
    Finding finding = new Finding(settings, binding, null);
    finding.deadlineNanos = deadlineNanos;
    return finding.connect(plan(settings, !binding.lostToRotation())).thenCompose(finding::settle);
  }

  /** Finds a connection for a call's retry: its walk goes on where it is. */
  CompletableFuture<RequestChannel> resume(Invocation inv) {
    Finding finding = new Finding(inv.settings(), inv.binding, inv);
    return finding.orConfigured(walkOf(inv).resume()).thenCompose(finding::settle);
  }

  /**
   * Goes back to the proxy's configured servers once every server of its cluster view has failed
   * its reroute retries (the client-reroute behaviour), once per call: a connection manager among
   * them may know a newer view; failing, the call fails with its latest cause first. Null when no
   * view is in force, since the configured servers are what was just tried, or when the call went
   * back already.
   */
  CompletableFuture<RequestChannel> throughConfigured(Invocation inv) {
    if (topologies.failoverOrder(inv.settings().fixedEndpoints()) == null
        || !walkOf(inv).takeConfiguredFallback()) {
      return null;
    }
    Finding finding = new Finding(inv.settings(), inv.binding, inv);
    return finding.walkConfigured(inv.history().latestCause()).thenCompose(finding::settle);
  }

  /**
   * One search for a proxy's connection: connect by a plan, then settle on the connection once its
   * server's view is known. A server outside the view it announces is a connection manager: the
   * search goes on to the view's primary (then alternates). When the whole view fails, the
   * configured servers are asked once more per call (a manager may know a newer view by then); one
   * that announces the view that just failed is used itself, so the search cannot loop.
   */
  private final class Finding {
    /** A manager may point at another manager, once; a third hop is taken as a loop. */
    private static final int MAX_MANAGER_HOPS = 2;

    private final ProxySettings settings;
    private final ProxyBinding binding;

    /** The call searching; null outside a call. */
    private final Invocation call;

    /**
     * The call's own walk, null until needed (a reused connection needs none); a search a server
     * redirects takes a walk of its own.
     */
    private EndpointWalk walk;

    /** The deadline of a search outside a call; a call's own is the call's. */
    private long deadlineNanos;

    private int hopsLeft = MAX_MANAGER_HOPS;

    /**
     * True once this search walked a cluster view's servers in failover order, primary first: what
     * it then connected to is the best the view has, even when that is an alternate.
     */
    private boolean walkedView;

    /**
     * The view every server of which failed before the configured servers were walked again, or
     * null.
     */
    private List<Endpoint> failedView;

    Finding(ProxySettings settings, ProxyBinding binding, Invocation call) {
      this.settings = settings;
      this.binding = binding;
      this.call = call;
    }

    CompletableFuture<RequestChannel> connect(Plan plan) {
      return connect(plan, null);
    }

    private EndpointWalk walk() {
      if (walk == null) {
        walk = call != null ? walkOf(call) : newWalk(settings, null, deadlineNanos, true);
      }
      return walk;
    }

    private CompletableFuture<RequestChannel> connect(Plan plan, EndpointWalk walker) {
      if (plan instanceof Plan.Reuse r) {
        CallExtras.noteAwaited(call, r.connection().key());
        // RetryPolicy fails a call on a connect failure because establishment walked every endpoint
        // first; a reused connection that was still connecting and failed has walked none.
        return r.connection()
            .ready()
            .handle(
                (c, failure) -> {
                  if (failure == null) {
                    return CompletableFuture.completedFuture(c);
                  }
                  CallExtras.noteAwaited(call, null);
                  return orConfigured(walkerOr(walker).start(r.fallback()));
                })
            .thenCompose(f -> f);
      }
      if (plan instanceof Plan.Walk w) {
        walkedView |= topologies.failoverOrder(settings.fixedEndpoints()) != null;
        return orConfigured(walkerOr(walker).start(w.candidates()));
      }
      return CompletableFuture.failedFuture(((Plan.Fail) plan).cause());
    }

    /**
     * {@code walked}, or when it fails under a cluster view, one round over the configured servers
     * (once per call).
     */
    CompletableFuture<RequestChannel> orConfigured(CompletableFuture<RequestChannel> walked) {
      return walked.exceptionallyCompose(
          failure ->
              topologies.failoverOrder(settings.fixedEndpoints()) == null
                      || !walk().takeConfiguredFallback()
                  ? CompletableFuture.failedFuture(failure)
                  : walkConfigured(CallFailures.unwrap(failure)));
    }

    /**
     * One round over the configured servers, ignoring the view; fails with (a copy of) {@code
     * viewFailure} first.
     */
    CompletableFuture<RequestChannel> walkConfigured(TetherException viewFailure) {
      failedView = topologies.failoverOrder(settings.fixedEndpoints());
      List<Candidate> configured;
      try {
        configured = rounds.configured(settings);
      } catch (TetherException e) {
        return CompletableFuture.failedFuture(viewFailure);
      }
      return newWalk(settings, call, deadlineNanos(), false)
          .start(configured)
          .exceptionallyCompose(
              failure -> {
                TetherException own = CallFailures.ownCopy(viewFailure);
                own.addSuppressed(CallFailures.unwrap(failure));
                return CompletableFuture.failedFuture(own);
              });
    }

    private long deadlineNanos() {
      return call == null ? deadlineNanos : call.deadlineNanos();
    }

    /** {@code walker}, or the call's own walk when null. */
    private EndpointWalk walkerOr(EndpointWalk walker) {
      return walker != null ? walker : walk();
    }

    /** A search a server redirected goes on with a walk of its own, over the view in force. */
    private CompletableFuture<RequestChannel> redirected(Plan plan) {
      return connect(plan, newWalk(settings, call, deadlineNanos(), true));
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
      return redirected(new Plan.Walk(order));
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
        host.reports().onViewUnreachable(settings, c, failedView);
      } else if (hopsLeft > 0 && TopologyViews.isOutside(view, c)) {
        hopsLeft--;
        host.reports().onManagerRedirect(settings, c, view);
        // The manager's connection carries no calls of ours; drained, a later walk back to the
        // configured servers opens a fresh one and so hears the manager's newest view.
        c.drain();
        return redirected(plan(settings)).thenCompose(this::settle);
      } else if (!walkedView && TopologyViews.isAlternateIn(view, c)) {
        // Connected to an alternate by a cached connection or the proxy's own endpoints, before
        // its view was known: the primary comes first. The alternate stays open, next in line.
        host.reports().onPrimaryRedirect(settings, c, view);
        return walkInOrder(c).thenCompose(this::settle);
      }
      binding.cache(c, alternate);
      topologies.follow(seeds, binding, c, view);
      if (alternate) {
        host.reports().onReroute(settings, c);
      }
      return CompletableFuture.completedFuture(c);
    }
  }
}
