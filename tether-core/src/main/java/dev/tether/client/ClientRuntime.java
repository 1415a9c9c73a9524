package dev.tether.client;

import dev.tether.ConnectFailedException;
import dev.tether.ConnectTimeoutException;
import dev.tether.Resolver;
import dev.tether.TetherException;
import dev.tether.internal.RetryBudget;
import dev.tether.spi.Scheduler;
import dev.tether.spi.Ticker;
import dev.tether.protocol.ProtocolVersion;
import dev.tether.transport.TransportSet;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.Future;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client half of a {@code Tether} instance: event loops, endpoint selection, the connection
 * pool, and the path of every invocation from proxy to connection. Thread-safe.
 */
public final class ClientRuntime {
  private static final Logger retryLog = LoggerFactory.getLogger("dev.tether.trace.retry");

  private final ClientConfig config;
  private final TransportSet transports;
  private final EndpointSelector selector;
  private final ConnectionPool pool;
  private final Ticker ticker;
  private final RetryBudget retryBudget;
  private final Scheduler scheduler;
  private final Reconnector reconnector;
  private volatile boolean closing;
  private final TopologyViews topologies = new TopologyViews();
  private final java.util.concurrent.ConcurrentHashMap<String, Session> sessions = new java.util.concurrent.ConcurrentHashMap<>();
  private final java.util.concurrent.ConcurrentHashMap<RouterKey, NodeRouter> routers = new java.util.concurrent.ConcurrentHashMap<>();
  private final NodeRouter.Factory routerFactory;
  private final Random random;
  private final String clientId = "tether-" + UUID.randomUUID();

  /**
   * @param scheduler runs timed work (retry rounds, invocation timeouts, reconnects); null for the
   *     runtime's own event loops
   */
  private final dev.tether.internal.EventBus events;
  private final java.util.concurrent.atomic.LongAdder retries = new java.util.concurrent.atomic.LongAdder();
  private final java.util.concurrent.atomic.LongAdder budgetRefusals = new java.util.concurrent.atomic.LongAdder();

  public ClientRuntime(
      ClientConfig config, Resolver resolver, SslContext tls, Ticker ticker, Scheduler scheduler, Random random,
      NodeRouter.Factory routerFactory, List<dev.tether.observe.TetherListener> listeners) {
    this.config = config;
    this.events = new dev.tether.internal.EventBus(listeners, ticker, "tether-events");
    this.random = random;
    this.routerFactory = routerFactory;
    this.ticker = ticker;
    this.retryBudget = new RetryBudget(config.retryBudgetRatio(), config.retryBudgetFloorPerSecond());
    this.transports = new TransportSet("tether-client", config.eventLoopThreads(), config.forceNio(), tls, null);
    this.scheduler = scheduler != null ? scheduler : new dev.tether.internal.EventLoopScheduler(transports.ioGroup());
    this.selector = new EndpointSelector(transports, resolver, config, random);
    this.pool = new ConnectionPool(this::newConnection);
    this.reconnector = new Reconnector(pool, config.reconnect(), this.scheduler, random);
  }

  private RequestChannel newConnection(Candidate candidate, ConnectionKey key) {
    return candidate.transport().isDatagram()
        ? new DatagramConnection(this, key, candidate)
        : new ClientConnection(this, key, candidate);
  }

  /** Starts a new call; the returned invocation is its future. */
  public Invocation invoke(ProxySettings settings, ProxyBinding binding, String operation, byte[] body, int flags) {
    Invocation inv = new Invocation(this, settings, binding, operation, body, flags);
    if (closing) {
      inv.fail(new TetherException("this Tether runtime is closed"));
      return inv;
    }
    retryBudget.recordCall(ticker.nanoTime());
    inv.armTimeout();
    start(inv);
    return inv;
  }

  /** Sends an invocation (first attempt or retry) on the proxy's connection, finding one first if needed. */
  void start(Invocation inv) {
    if (inv.settings.session() != null) {
      startInSession(inv);
      return;
    }
    if (routesOverNodes(inv.settings)) {
      startOnNode(inv, java.util.Set.of());
      return;
    }
    RequestChannel cached = inv.settings.connectionCached() ? inv.binding.usable() : null;
    if (cached != null) {
      hand(inv, cached);
      return;
    }
    establish(inv.settings, inv.binding).whenComplete((connection, failure) -> {
      if (failure != null) {
        inv.onConnectFailed(unwrap(failure));
      } else {
        hand(inv, connection);
      }
    });
  }

  /** True when calls are spread over nodes by a strategy rather than pinned to one connection. */
  static boolean routesOverNodes(ProxySettings settings) {
    return settings.loadBalancing() != dev.tether.LoadBalancing.PINNED;
  }

  private void startOnNode(Invocation inv, java.util.Set<ConnectionKey> exclude) {
    NodeRouter router = routerFor(inv.settings, inv.binding);
    router.route(inv.settings, exclude, inv.deadlineNanos()).whenComplete((connection, failure) -> {
      if (failure != null) {
        inv.onConnectFailed(unwrap(failure));
      } else {
        inv.routedBy(router);
        hand(inv, connection);
      }
    });
  }

  /** The node router shared by every proxy with the same endpoints, connection id and strategy. */
  NodeRouter routerFor(ProxySettings settings, ProxyBinding binding) {
    // Looked up once per proxy: a proxy's settings never change, so neither does its group.
    NodeRouter cached = binding.router();
    if (cached != null) {
      return cached;
    }
    Object source = settings.source() != null ? settings.source() : settings.fixedEndpoints();
    RouterKey key = new RouterKey(source, settings.connectionId(), settings.loadBalancing(), settings.mode());
    NodeRouter router = routers.computeIfAbsent(key, k -> routerFactory.create(this, settings));
    binding.router(router);
    return router;
  }

  private record RouterKey(Object source, String connectionId, dev.tether.LoadBalancing strategy,
      dev.tether.InvocationMode mode) {}

  /**
   * A session's calls stay on its connection. When that connection was lost, the next call opens
   * another and fails with SessionLostException naming the new server; later calls run there.
   */
  private void startInSession(Invocation inv) {
    Session session = sessions.computeIfAbsent(inv.settings.identity() + "/" + inv.settings.session(), k -> new Session());
    RequestChannel current = session.connection;
    if (current != null && current.isUsable()) {
      hand(inv, current);
      return;
    }
    boolean replacing = current != null;
    establish(inv.settings, inv.binding).whenComplete((connection, failure) -> {
      if (failure != null) {
        inv.onConnectFailed(unwrap(failure));
        return;
      }
      session.connection = connection;
      if (replacing) {
        inv.fail(new dev.tether.SessionLostException("session " + inv.settings.session() + " reconnected to "
            + connection + "; the session's work was lost; retry the unit"));
      } else {
        hand(inv, connection);
      }
    });
  }

  private static void hand(Invocation inv, RequestChannel connection) {
    if (inv.settings.mode().isBatch()) {
      connection.queueBatch(inv);
    } else {
      connection.send(inv);
    }
  }

  /**
   * Sends the batch requests queued for a proxy: on its cached connection, or, for a proxy that
   * does not cache, on every pooled connection (its calls may have gone to any of them).
   */
  public void flushBatches(ProxyBinding binding) {
    RequestChannel cached = binding.usable();
    if (cached != null) {
      cached.flushBatch();
      return;
    }
    for (RequestChannel c : pool.all()) {
      c.flushBatch();
    }
  }

  /**
   * Finds or opens a connection for the proxy (seed 000, 36.3): a cached proxy reuses any pooled
   * connection to one of its endpoints; otherwise the endpoints are tried in selection order, each
   * reusing a pooled connection or opening one, round after round per {@code tether.retry.intervals}.
   */
  public CompletableFuture<RequestChannel> establish(ProxySettings settings, ProxyBinding binding) {
    if (routesOverNodes(settings) && settings.session() == null) {
      return routerFor(settings, binding).route(settings, java.util.Set.of(), 0);
    }
    ProxySettings effective = withKnownTopology(settings);
    List<Candidate> candidates;
    try {
      candidates = selector.select(effective);
    } catch (TetherException e) {
      return CompletableFuture.failedFuture(e);
    }
    return connect(settings, binding, candidates, roundWaits(settings, effective));
  }

  /**
   * Once a server announced a cluster view, it replaces the proxy's endpoints: primary first, the
   * alternates after, in that order (seed 002).
   */
  private ProxySettings withKnownTopology(ProxySettings settings) {
    List<dev.tether.Endpoint> order = topologies.failoverOrder(settings.fixedEndpoints());
    if (order == null) {
      return settings;
    }
    return settings.with(c -> c.endpoints(order).selection(dev.tether.EndpointSelection.ORDERED));
  }

  /**
   * The waits before each extra round: {@code tether.retry.intervals}, or under a cluster view
   * {@code maxRerouteRetries} rounds {@code rerouteRetryInterval} apart.
   */
  private List<Duration> roundWaits(ProxySettings settings, ProxySettings effective) {
    if (effective == settings) {
      return config.retryIntervals();
    }
    return java.util.Collections.nCopies(settings.maxRerouteRetries(), settings.rerouteRetryInterval());
  }

  private CompletableFuture<RequestChannel> connect(
      ProxySettings settings, ProxyBinding binding, List<Candidate> candidates, List<Duration> roundWaits) {
    if (settings.connectionCached()) {
      for (Candidate c : candidates) {
        RequestChannel existing = pool.existing(c.key(settings.connectionId()));
        if (existing != null && isCompatible(settings, existing)) {
          return bind(settings, existing.ready(), binding);
        }
      }
    }
    Establishment attempt = new Establishment(settings, candidates, roundWaits);
    attempt.tryNext();
    return bind(settings, attempt.result, binding);
  }

  /** True when the server behind {@code c} satisfies the proxy's version range (or it has none). */
  public static boolean isCompatible(ProxySettings settings, RequestChannel c) {
    if (settings.serverVersion() == null || !(c instanceof ClientConnection cc) || cc.welcome() == null) {
      return true;
    }
    return settings.serverVersion().contains(cc.welcome().serverVersion());
  }

  /**
   * Connects eagerly: a pinned proxy opens its connection; a load-balanced one connects to every
   * node and completes once one is connected.
   */
  public CompletableFuture<Void> connectAsync(ProxySettings settings, ProxyBinding binding) {
    if (routesOverNodes(settings)) {
      return routerFor(settings, binding).connectAny(settings);
    }
    return establish(settings, binding).thenApply(c -> null);
  }

  /** Opens (or reuses) a connection to one candidate, for node routers. */
  public CompletableFuture<RequestChannel> obtain(Candidate candidate, String connectionId) {
    return pool.obtain(candidate, connectionId).ready();
  }

  /** Runs endpoint selection for a proxy, for node routers. */
  public List<Candidate> select(ProxySettings settings) {
    return selector.select(settings);
  }

  /**
   * Sends a call again after a retryable failure: to the endpoints this round has not tried yet,
   * and once every endpoint was tried, after the next retry interval, to all of them again
   * (re-resolved); when no round is left, the call fails with its latest cause.
   */
  void retry(Invocation inv) {
    List<Candidate> untried;
    try {
      untried = inv.untried(selector.select(withKnownTopology(inv.settings)));
    } catch (TetherException e) {
      inv.fail(e);
      return;
    }
    if (untried.isEmpty()) {
      startNextRound(inv);
      return;
    }
    if (routesOverNodes(inv.settings) && inv.settings.session() == null) {
      startOnNode(inv, inv.triedKeys());
      return;
    }
    connect(inv.settings, inv.binding, untried, List.of()).whenComplete((connection, failure) -> {
      if (failure == null) {
        hand(inv, connection);
      } else {
        inv.onRetryConnectFailed(untried, unwrap(failure));
      }
    });
  }

  private void startNextRound(Invocation inv) {
    List<Duration> waits = roundWaits(inv.settings, withKnownTopology(inv.settings));
    if (inv.round() >= waits.size()) {
      inv.failWithLatestCause();
      return;
    }
    Duration wait = waits.get(inv.round());
    inv.beginNextRound();
    trace(2, "{} of {}: every endpoint tried, round {} in {} ms", inv.operation, inv.settings.identity(),
        inv.round() + 1, wait.toMillis());
    if (wait.isZero()) {
      retry(inv);
    } else {
      schedule(() -> retry(inv), wait);
    }
  }


  private CompletableFuture<RequestChannel> bind(
      ProxySettings settings, CompletableFuture<RequestChannel> f, ProxyBinding binding) {
    return f.thenApply(c -> {
      // Whether the view in force made us use an alternate, before this server's view replaces it.
      binding.cache(c, topologies.isAlternate(settings.fixedEndpoints(), c));
      topologies.learn(settings.fixedEndpoints(), c);
      return c;
    });
  }

  /** One walk over a proxy's endpoints, in rounds, until a connection is ready. */
  private final class Establishment {
    final CompletableFuture<RequestChannel> result = new CompletableFuture<>();
    final ProxySettings settings;
    List<Candidate> candidates;
    int index;
    int round;
    TetherException first;
    TetherException last;
    final StringBuilder tried = new StringBuilder();
    /** True while every failure so far was a server outside the proxy's version range. */
    boolean onlyIncompatible = true;
    /** Endpoints whose certificate names another host: a later round would meet the same one. */
    final java.util.Set<dev.tether.Endpoint> wrongName = new java.util.HashSet<>();

    final List<Duration> roundWaits;

    Establishment(ProxySettings settings, List<Candidate> candidates, List<Duration> roundWaits) {
      this.settings = settings;
      this.candidates = candidates;
      this.roundWaits = roundWaits;
    }

    void tryNext() {
      if (index == candidates.size()) {
        nextRound();
        return;
      }
      Candidate c = candidates.get(index++);
      pool.obtain(c, settings.connectionId()).ready().whenComplete((conn, failure) -> {
        if (failure == null && !isCompatible(settings, conn)) {
          recordFailure(c, new dev.tether.IncompatibleServerException(c.endpoint() + " runs version "
              + ((ClientConnection) conn).welcome().serverVersion() + ", outside " + settings.serverVersion()));
          tryNext();
        } else if (failure == null) {
          trace(2, "connected to {} for {}", c.endpoint(), settings.identity());
          result.complete(conn);
        } else {
          recordFailure(c, unwrap(failure));
          tryNext();
        }
      });
    }

    private void recordFailure(Candidate c, TetherException failure) {
      onlyIncompatible &= failure instanceof dev.tether.IncompatibleServerException;
      if (dev.tether.transport.PeerNameMismatchException.isCauseOf(failure)) {
        wrongName.add(c.endpoint());
      }
      trace(2, "connect to {} failed: {}", c.endpoint(), failure.getMessage());
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
        trace(1, "giving up on {} after {} round(s)", settings.identity(), round + 1);
        result.completeExceptionally(finalFailure());
        return;
      }
      Duration wait = roundWaits.get(round++);
      Runnable again = () -> {
        try {
          candidates = selector.select(withKnownTopology(settings));
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
      };
      if (wait.isZero()) {
        again.run();
      } else {
        schedule(again, wait);
      }
    }

    private TetherException finalFailure() {
      String message = "cannot connect " + settings.identity() + " after " + (round + 1)
          + " round(s); tried " + tried + "; last cause: " + last.getMessage();
      TetherException ex = last instanceof ConnectTimeoutException
          ? new ConnectTimeoutException(message, last)
          : onlyIncompatible ? new dev.tether.IncompatibleServerException(message, last)
          : new ConnectFailedException(message, last);
      if (first != last) {
        ex.addSuppressed(first);
      }
      return ex;
    }
  }

  /** New ssl connections use {@code next}; open ones go on (Tether.reloadTls). */
  public void reloadTls(io.netty.handler.ssl.SslContext next) {
    transports.reloadTls(next);
  }

  RetryBudget retryBudget() {
    return retryBudget;
  }

  void traceRetry(Invocation inv, dev.tether.Attempt.Outcome outcome, TetherException cause) {
    trace(2, "retrying {} of {} (retry {}) after {}: {}",
        inv.operation, inv.settings.identity(), inv.retries(), outcome, cause.getMessage());
  }

  /** The liveness rules for a connection opened with transport timeout {@code timeout}. */
  LivenessMonitor.Settings livenessSettings(Duration timeout) {
    return new LivenessMonitor.Settings(
        config.heartbeatReaderIdle().toNanos(),
        config.heartbeatIdleTimeout().toNanos(),
        timeout == null ? 0 : timeout.toNanos());
  }

  private void trace(int level, String format, Object... args) {
    if (config.traceRetry() >= level) {
      retryLog.info(format, args);
    }
  }

  static TetherException unwrap(Throwable t) {
    Throwable cause = t;
    while ((cause instanceof java.util.concurrent.CompletionException
        || cause instanceof java.util.concurrent.ExecutionException) && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause instanceof TetherException te ? te : new TetherException(String.valueOf(cause), cause);
  }

  public Scheduler.Cancellable schedule(Runnable task, Duration delay) {
    return scheduler.schedule(task, delay.toNanos());
  }

  /** A connection that was serving broke without being asked to close: reconnect it in the background. */
  void onConnectionBroken(Candidate candidate, ConnectionKey key) {
    if (!closing) {
      reconnector.onBroken(candidate, key);
    }
  }

  /** How many broken connections are being re-established now. */
  public int reconnectingCount() {
    return reconnector.activeStreaks();
  }

  /** Where every state machine of this runtime reports its transitions. */
  public dev.tether.internal.EventBus events() {
    return events;
  }

  void countRetry() {
    retries.increment();
  }

  void countBudgetRefusal() {
    budgetRefusals.increment();
  }

  /**
   * A snapshot of every connection (each read on its own loop) and every node group; a loop that
   * does not answer within a second leaves its connection out.
   */
  public dev.tether.observe.TetherStatus status() {
    List<CompletableFuture<dev.tether.observe.ConnectionStatus>> pending = new java.util.ArrayList<>();
    for (RequestChannel c : pool.all()) {
      pending.add(c.status());
    }
    List<dev.tether.observe.ConnectionStatus> connections = new java.util.ArrayList<>(pending.size());
    for (CompletableFuture<dev.tether.observe.ConnectionStatus> f : pending) {
      try {
        connections.add(f.get(1, java.util.concurrent.TimeUnit.SECONDS));
      } catch (Exception notAnswered) {
        // A loop that is shutting down or stuck: this snapshot goes without that connection.
      }
    }
    List<dev.tether.observe.NodeStatus> nodes = new java.util.ArrayList<>();
    for (NodeRouter r : routers.values()) {
      nodes.addAll(r.nodeStatus());
    }
    return new dev.tether.observe.TetherStatus(connections, nodes, retries.sum(), budgetRefusals.sum());
  }

  public boolean isClosing() {
    return closing;
  }

  public ClientConfig config() {
    return config;
  }

  public ConnectionPool pool() {
    return pool;
  }

  public Ticker ticker() {
    return ticker;
  }

  /** The runtime's source of randomness (seeded in tests). */
  public Random random() {
    return random;
  }

  /** The runtime's scheduler, for node supervision. */
  public Scheduler scheduler() {
    return scheduler;
  }

  String clientId() {
    return clientId;
  }

  int maxFrameSize() {
    return ProtocolVersion.DEFAULT_MAX_FRAME_SIZE;
  }

  /**
   * Drains like a server's graceful shutdown: no new calls, pending calls get their answers (at
   * most {@code tether.close.grace}), then every connection closes and the event loops stop.
   */
  public Future<?> shutdown() {
    closing = true;
    reconnector.close();
    pool.drainAll(config.closeGrace().toMillis());
    Future<?> stopped = transports.shutdown();
    stopped.addListener(f -> events.close());
    return stopped;
  }
}
