package dev.tether.client;

import dev.tether.Attempt;
import dev.tether.InvocationMode;
import dev.tether.LoadBalancing;
import dev.tether.Resolver;
import dev.tether.TetherException;
import dev.tether.internal.Backoff;
import dev.tether.internal.EventBus;
import dev.tether.internal.RetryBudget;
import dev.tether.internal.SerialExecutor;
import dev.tether.observe.TetherListener;
import dev.tether.observe.TetherStatus;
import dev.tether.spi.Scheduler;
import dev.tether.spi.Ticker;
import dev.tether.transport.TransportSet;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.Future;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;

/**
 * The client half of a {@code Tether} instance and the composition root of the client package: it
 * wires event loops, endpoint selection, the connection supervisors, the call path and node groups,
 * and owns the runtime's control executor, scheduler, ticker and event bus. Thread-safe.
 */
public final class ClientRuntime implements ConnectionSupervisor.Host, NodeHost, CallHost {
  private final ClientConfig config;
  private final TransportSet transports;
  private final EndpointSelector selector;
  private final ConnectionPool pool;
  private final CallPath calls;
  private final ConnectionFinder finder;
  private final TopologyViews topologies;
  private final Ticker ticker;
  private final Scheduler scheduler;
  private final Random random;
  private final RetryBudget retryBudget;
  private final SerialExecutor control = new SerialExecutor();
  private final EventBus events;
  private final ConcurrentHashMap<RouterKey, NodeRouter> routers = new ConcurrentHashMap<>();
  private final NodeRouter.Factory routerFactory;
  private final String clientId = "tether-" + UUID.randomUUID();
  private final ClientReports reports;

  /** Sees every logical call; null when none is set, which costs a call one read of this field. */
  private final dev.tether.ClientInterceptor interceptor;

  /**
   * Set once by {@link #shutdown}; read by callers on any thread to refuse new calls, and by the
   * loops to tell a break from the runtime's own close: a one-way flag, so volatile, not a hop.
   */
  private volatile boolean closing;

  /**
   * @param scheduler keeps time for every timer of the runtime; null for the runtime's own event
   *     loops
   * @param interceptor sees every logical call; null for none
   */
  public ClientRuntime(
      ClientConfig config,
      Resolver resolver,
      SslContext tls,
      Ticker ticker,
      Scheduler scheduler,
      Random random,
      NodeRouter.Factory routerFactory,
      List<TetherListener> listeners,
      dev.tether.ClientInterceptor interceptor) {
    this.config = config;
    this.interceptor = interceptor;
    this.ticker = ticker;
    this.random = random;
    this.routerFactory = routerFactory;
    List<TetherListener> all = new ArrayList<>(listeners);
    if (config.traceRetry() > 0 || config.traceConnection()) {
      all.add(new TraceLog(config.traceRetry(), config.traceConnection()));
    }
    this.events = new EventBus(all, ticker, "tether-events");
    this.retryBudget =
        new RetryBudget(config.retryBudgetRatio(), config.retryBudgetFloorPerSecond());
    this.transports =
        new TransportSet(
            "tether-client", config.eventLoopThreads(), config.forceNio(), tls, null, scheduler);
    this.scheduler = transports.timers();
    this.reports = new ClientReports(events, this.scheduler);
    this.selector = new EndpointSelector(transports, resolver, config, random);
    this.pool = new ConnectionPool(this, config.reconnect(), ticker);
    this.topologies = new TopologyViews(control);
    RetryRounds rounds = new RetryRounds(config.retryIntervals(), topologies, selector, this);
    this.finder = new ConnectionFinder(this, pool, rounds, topologies);
    this.calls = new CallPath(this, finder);
  }

  // ---- calls ----

  /** Starts a new call; the returned future is its outcome. */
  public CompletableFuture<byte[]> invoke(
      ProxySettings settings, ProxyBinding binding, String operation, byte[] body, int flags) {
    if (isHedged(settings, flags) && !closing) {
      retryBudget.recordCall(ticker.nanoTime());
      TracedCall trace =
          interceptor == null ? null : TracedCall.start(interceptor, settings, operation, flags);
      return new HedgedCall(
              this, calls, settings, binding, operation, body, flags, deadlineFor(settings))
          .start(trace);
    }
    Invocation inv = new Invocation(binding, operation, body, flags);
    start(inv);
    return inv;
  }

  /**
   * Starts a new call whose answer {@code decoder} turns into the future's value (a typed stub's):
   * the call itself completes that future, which spares a completion stage per call. Hedged and
   * batched calls, and calls on a closed runtime, take an ordinary stage.
   */
  public <T> CompletableFuture<T> invoke(
      ProxySettings settings,
      ProxyBinding binding,
      String operation,
      byte[] body,
      int flags,
      Function<byte[], T> decoder) {
    if (isHedged(settings, flags) || settings.mode().isBatch() || closing) {
      return invoke(settings, binding, operation, body, flags).thenApply(decoder);
    }
    Invocation inv = new Invocation(binding, operation, body, flags);
    DecodedReply<T> reply = new DecodedReply<>(inv, decoder);
    inv.reportTo(reply);
    start(inv);
    return reply;
  }

  private void start(Invocation inv) {
    watch(inv);
    if (closing) {
      inv.fail(new TetherException("this Tether runtime is closed"));
      return;
    }
    if (inv.settings().mode().isBatch()) {
      inv.binding.batch().add(inv); // no connection until flushBatch()
      return;
    }
    retryBudget.recordCall(ticker.nanoTime());
    inv.armDeadline();
    calls.start(inv);
  }

  /**
   * A new call's absolute deadline on this runtime's ticker, 0 for none (see {@link
   * dev.tether.internal.CallDeadline#forNewCall}).
   */
  @Override
  public long deadlineFor(ProxySettings settings) {
    return dev.tether.internal.CallDeadline.forNewCall(settings.invocationTimeout(), ticker);
  }

  /** Only an idempotent twoway call outside a session may run on several servers at once. */
  private static boolean isHedged(ProxySettings settings, int flags) {
    return settings.hedgingMaxAttempts() > 1
        && (flags & dev.tether.protocol.Request.IDEMPOTENT) != 0
        && (flags & dev.tether.protocol.Request.ONEWAY) == 0
        && settings.session() == null
        && !settings.mode().isBatch();
  }

  /**
   * The client interceptor, if there is one, watches {@code inv}: a call, or a stream's opening.
   */
  void watch(Invocation inv) {
    TracedCall trace =
        interceptor == null
            ? null
            : TracedCall.start(interceptor, inv.settings(), inv.operation, inv.flags());
    if (trace != null) {
      inv.traceAs(trace, null, true);
    }
  }

  /** Hands a call's attempt to a connection. */
  void hand(Invocation inv, RequestChannel connection) {
    connection.send(inv);
  }

  /**
   * A failed attempt may run again (decided by the invocation): count, tell, and go on on the
   * control executor.
   */
  @Override
  public void onRetry(
      Invocation inv, Attempt.Outcome outcome, TetherException cause, String endpoint) {
    reports.onRetry(inv, outcome, cause, endpoint);
    retry(inv);
  }

  /**
   * A connected server announced a new cluster view (on the connection's loop): the views learned
   * from that connection take it at once, on the control executor, so the next connection choice
   * follows the new order without waiting for a reconnect.
   */
  void onTopologyAnnounced(ClientConnection connection) {
    topologies.relearn(connection);
  }

  void retry(Invocation inv) {
    control.execute(() -> calls.retry(inv));
  }

  /**
   * Sends the batch requests the proxy queued, and only those, on the connection its next call
   * would use (found or opened now, as for a call). None of them was on the wire yet, so a
   * connection that closed since they were queued loses nothing: they go on the new one. Fails with
   * {@link dev.tether.BatchLostException} naming how many were not sent (no connection, a failed
   * write, too large for the server); those are no longer queued.
   */
  public CompletableFuture<Void> flushBatch(ProxySettings settings, ProxyBinding binding) {
    List<Invocation> queued = binding.batch().drain();
    if (queued.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    if (closing) {
      return CompletableFuture.failedFuture(
          BatchFrames.lost(
              queued.size(),
              queued.size(),
              settings.identity(),
              new TetherException("the runtime is closed")));
    }
    RequestChannel cached =
        settings.connectionCached() && !CallPath.routesOverNodes(settings)
            ? binding.usable()
            : null;
    CompletableFuture<RequestChannel> connection =
        cached != null ? CompletableFuture.completedFuture(cached) : establish(settings, binding);
    return connection
        .handle(
            (c, failure) ->
                failure == null
                    ? c.sendBatch(queued)
                    : CompletableFuture.<Void>failedFuture(
                        BatchFrames.lost(
                            queued.size(), queued.size(), settings.identity(), unwrap(failure))))
        .thenCompose(f -> f);
  }

  /** New connections use {@code next} from now on; open ones keep the context they have. */
  public void reloadTls(SslContext next) {
    transports.reloadTls(next);
    pool.onCredentialsChanged();
  }

  /** Finds or opens a connection for the proxy, as its first call would. */
  public CompletableFuture<RequestChannel> establish(ProxySettings settings, ProxyBinding binding) {
    if (CallPath.routesOverNodes(settings)) {
      return routerFor(settings, binding).route(settings, java.util.Set.of(), 0);
    }
    return finder.find(settings, binding, 0);
  }

  /**
   * Connects eagerly: a pinned proxy its connection; a load-balanced one every node, done once one
   * is connected.
   */
  public CompletableFuture<Void> connectAsync(ProxySettings settings, ProxyBinding binding) {
    if (CallPath.routesOverNodes(settings)) {
      return routerFor(settings, binding).connectAny(settings);
    }
    return establish(settings, binding).thenApply(c -> null);
  }

  /**
   * The node router shared by every proxy with the same endpoints, connection id, strategy, mode
   * and version range.
   */
  @Override
  public NodeRouter routerFor(ProxySettings settings, ProxyBinding binding) {
    // Looked up once per proxy: a proxy's settings never change, so neither does its group.
    NodeRouter cached = binding.router();
    if (cached != null) {
      return cached;
    }
    Object source = settings.source() != null ? settings.source() : settings.fixedEndpoints();
    RouterKey key =
        new RouterKey(
            source,
            settings.connectionId(),
            settings.loadBalancing(),
            settings.mode(),
            settings.serverVersion());
    NodeRouter router = routers.computeIfAbsent(key, k -> routerFactory.create(this, settings));
    binding.router(router);
    return router;
  }

  /**
   * A node group's identity: the version range is part of it, because a group marks the nodes
   * outside its range INCOMPATIBLE for every proxy that shares it. Null range: any version.
   */
  private record RouterKey(
      Object source,
      String connectionId,
      LoadBalancing strategy,
      InvocationMode mode,
      VersionRange versions) {}

  // ---- what supervisors and node groups ask of the runtime ----

  @Override
  public SerialExecutor control() {
    return control;
  }

  @Override
  public Scheduler.Cancellable scheduleOnControl(Runnable task, long delayNanos) {
    return scheduleOn(control, task, delayNanos);
  }

  @Override
  public Scheduler.Cancellable scheduleOnControl(Runnable task, Duration delay) {
    return scheduleOn(control, task, delay.toNanos());
  }

  /** Keeps time with the runtime's scheduler, then runs {@code task} on its owner's thread. */
  Scheduler.Cancellable scheduleOn(Executor owner, Runnable task, long delayNanos) {
    try {
      return scheduler.schedule(
          () -> {
            try {
              owner.execute(task);
            } catch (RejectedExecutionException ownerStopped) {
              // The owner's event loop has shut down with the runtime; nothing is left to act on.
            }
          },
          delayNanos);
    } catch (RejectedExecutionException stopping) {
      // The runtime's own timers stopped with its event loops: a closing runtime plans nothing.
      return () -> {};
    }
  }

  /** The scheduler every timer of the runtime keeps time with. */
  public Scheduler scheduler() {
    return scheduler;
  }

  @Override
  public RequestChannel newConnection(Candidate candidate, ConnectionKey key) {
    return candidate.transport().isDatagram()
        ? new DatagramConnection(this, key, candidate)
        : new ClientConnection(this, key, candidate);
  }

  @Override
  public int maxExtraConnections() {
    return config.connections().maxExtra();
  }

  /** {@code c} has calls waiting for a slot (on its loop); its supervisor finds them room. */
  void onSaturated(ClientConnection c) {
    pool.supervisorOf(c.key()).ifPresent(s -> s.onSaturated(c));
  }

  /**
   * How long {@code c} may go without a call before it closes (0: never): extras close after {@code
   * tether.connection.extraIdleClose}; a node group's connections stay, since the group supervises
   * them; others follow {@code tether.connection.idleClose}.
   */
  long idleCloseNanos(ClientConnection c) {
    ClientConfig.ConnectionUse use = config.connections();
    if (c.isExtra()) {
      return use.extraIdleClose().toNanos();
    }
    boolean supervised =
        pool.supervisorOf(c.key()).map(ConnectionSupervisor::keepsConnected).orElse(false);
    return supervised ? 0 : use.idleClose().toNanos();
  }

  /** True when {@code c} is its key's own connection, whose dials its supervisor reports. */
  boolean isSupervisorsOwn(RequestChannel c) {
    return pool.isSupervisorsOwn(c);
  }

  /** A connection closed; its supervisor decides what follows. Called on the connection's loop. */
  void onConnectionClosed(RequestChannel c, boolean unexpectedly, Throwable cause) {
    pool.supervisorOf(c.key())
        .ifPresent(s -> s.onConnectionClosed(c, unexpectedly && !closing, cause));
  }

  /**
   * {@code c} reached its maximum age (the server's or this side's): its supervisor replaces it.
   */
  void onConnectionAged(RequestChannel c, String why) {
    pool.supervisorOf(c.key()).ifPresent(s -> s.onAged(c, why));
  }

  @Override
  public List<Candidate> select(ProxySettings settings) {
    return selector.select(settings);
  }

  @Override
  public ConnectionSupervisor supervisor(Candidate candidate, String connectionId) {
    return pool.supervisor(candidate, connectionId);
  }

  @Override
  public boolean isCompatible(ProxySettings settings, RequestChannel c) {
    return ConnectionFinder.isCompatible(settings, c);
  }

  @Override
  public EjectionPolicy ejection() {
    return config.ejection();
  }

  /**
   * What a call of {@code endpoints} without a connection at its deadline waited for; control
   * executor.
   */
  @Override
  public CallTimeline.Wait waitAmong(List<dev.tether.Endpoint> endpoints) {
    return pool.waitAmong(endpoints);
  }

  @Override
  public Backoff nodeBackoff() {
    return config.nodeReconnect();
  }

  @Override
  public EventBus events() {
    return events;
  }

  @Override
  public Ticker ticker() {
    return ticker;
  }

  /** The runtime's source of randomness (seeded in tests). */
  @Override
  public Random random() {
    return random;
  }

  @Override
  public boolean isClosing() {
    return closing;
  }

  // ---- status and configuration ----

  /**
   * The connection numbered {@code id} while this runtime holds it (connecting, ready or draining),
   * else null.
   */
  public RequestChannel connectionNumbered(long id) {
    for (RequestChannel c : pool.all()) {
      if (c.id() == id) {
        return c;
      }
    }
    return null;
  }

  /**
   * A snapshot of every connection (each read on its own loop) and every node group; a loop that
   * does not answer within a second of the runtime's clock leaves its connection out.
   */
  public TetherStatus status() {
    return reports.status(pool.all(), routers.values());
  }

  /** Where the runtime's events and counters of retries, hedges and reroutes go. */
  @Override
  public ClientReports reports() {
    return reports;
  }

  @Override
  public RetryBudget retryBudget() {
    return retryBudget;
  }

  public ClientConfig config() {
    return config;
  }

  String clientId() {
    return clientId;
  }

  int maxFrameSize() {
    return config.maxFrameSize();
  }

  static TetherException unwrap(Throwable t) {
    return CallFailures.unwrap(t);
  }

  /**
   * Drains like a server's graceful shutdown: no new calls, pending calls get their answers (at
   * most {@code tether.close.grace}), then every connection closes and the event loops stop.
   */
  public Future<?> shutdown() {
    closing = true;
    pool.drainAll(config.closeGrace().toNanos());
    Future<?> stopped = transports.shutdown();
    stopped.addListener(f -> events.close());
    return stopped;
  }
}
