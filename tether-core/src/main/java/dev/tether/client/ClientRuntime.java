package dev.tether.client;

import dev.tether.Attempt;
import dev.tether.ClientInterceptor;
import dev.tether.Endpoint;
import dev.tether.Resolver;
import dev.tether.TetherException;
import dev.tether.internal.Backoff;
import dev.tether.internal.CallDeadline;
import dev.tether.internal.EventBus;
import dev.tether.internal.OwnedTimer;
import dev.tether.internal.RetryBudget;
import dev.tether.internal.SerialExecutor;
import dev.tether.observe.TetherListener;
import dev.tether.observe.TetherStatus;
import dev.tether.protocol.Request;
import dev.tether.spi.Scheduler;
import dev.tether.spi.Ticker;
import dev.tether.stream.StreamItemCounts;
import dev.tether.transport.TransportSet;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.Future;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.function.Function;

/**
 * The client half of a {@code Tether} instance and the composition root of the client package: it
 * wires event loops, endpoint selection, the connection side ({@link ConnectionHub}), the call path
 * and node groups, and owns the runtime's control executor, scheduler, ticker and event bus. Node
 * groups and streams see it only as their {@link NodeHost} and {@link StreamHost}. Thread-safe.
 */
public final class ClientRuntime implements NodeHost, StreamHost, CallHost {
  private final ClientConfig config;
  private final TransportSet transports;
  private final EndpointSelector selector;
  private final ConnectionHub connections;
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
  private final NodeRouters routers;
  private final ClientReports reports;

  /** Sees every logical call; null when none is set, which costs a call one read of this field. */
  private final ClientInterceptor interceptor;

  /**
   * Set once by {@link #shutdown}; read by callers on any thread to refuse new calls, and by the
   * loops to tell a break from the runtime's own close: a one-way flag, so volatile, not a hop.
   */
  private volatile boolean closing;

  /** The timer of calls waiting out a retry interval, which closing ends. */
  private final RoundTimer roundTimer = new RoundTimer(control, this::scheduleOnControl);

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
      ClientInterceptor interceptor) {
    this.config = config;
    this.interceptor = interceptor;
    this.ticker = ticker;
    this.random = random;
    this.routers = new NodeRouters(routerFactory, this);
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
    this.topologies = new TopologyViews(control);
    this.connections =
        new ConnectionHub(
            config,
            ticker,
            this.scheduler,
            random,
            events,
            control,
            topologies,
            "tether-" + UUID.randomUUID(),
            () -> closing);
    this.pool = connections.pool();
    RetryRounds rounds = new RetryRounds(config.retryIntervals(), topologies, selector, roundTimer);
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
      inv.succeed(Invocation.EMPTY); // a batched call completes once queued
      return;
    }
    retryBudget.recordCall(ticker.nanoTime());
    inv.armDeadline();
    calls.start(inv);
  }

  /**
   * A new call's absolute deadline on this runtime's ticker, 0 for none (see {@link
   * CallDeadline#forNewCall}).
   */
  @Override
  public long deadlineFor(ProxySettings settings) {
    return CallDeadline.forNewCall(settings.invocationTimeout(), ticker);
  }

  /** Only an idempotent twoway call outside a session may run on several servers at once. */
  private static boolean isHedged(ProxySettings settings, int flags) {
    return settings.hedgingMaxAttempts() > 1
        && (flags & Request.IDEMPOTENT) != 0
        && (flags & Request.ONEWAY) == 0
        && settings.session() == null
        && !settings.mode().isBatch();
  }

  /**
   * The client interceptor, if there is one, watches {@code inv}: a call, or a stream's opening.
   */
  @Override
  public void watch(Invocation inv) {
    TracedCall trace =
        interceptor == null
            ? null
            : TracedCall.start(interceptor, inv.settings(), inv.operation, inv.flags());
    if (trace != null) {
      inv.extras().traceAs(trace, null, true);
    }
  }

  /** Hands a call's attempt to a connection. */
  @Override
  public void hand(Invocation inv, RequestChannel connection) {
    connection.send(inv);
  }

  /**
   * A failed attempt may run again (decided by the invocation): count, tell, and go on on the
   * control executor.
   */
  @Override
  public void onRetry(
      Invocation inv, Attempt.Outcome outcome, TetherException cause, String endpoint) {
    reports.onRetry(inv, inv.retries(), outcome, cause, endpoint);
    control.execute(() -> calls.retry(inv));
  }

  /**
   * The binding of a new proxy with {@code settings}: its cached connection, its batch, its router.
   */
  public ProxyBinding bind(ProxySettings settings) {
    return new ProxyBinding(this, settings);
  }

  /**
   * What {@code Proxy.stream} returns: a cold publisher of streams of {@code operation} through
   * {@code binding}'s proxy; {@code outbound} is what the client sends, or null for a server
   * stream.
   */
  public StreamPublisher stream(
      ProxyBinding binding,
      String operation,
      byte[] request,
      Flow.Publisher<byte[]> outbound,
      int flags) {
    return new StreamPublisher(this, binding, operation, request, outbound, flags);
  }

  /**
   * Sends the batch requests the proxy queued, and only those, on the connection its next call
   * would use (found or opened now, as for a call); see {@link BatchQueue#flush}.
   */
  public CompletableFuture<Void> flushBatch(ProxySettings settings, ProxyBinding binding) {
    RequestChannel cached =
        settings.connectionCached() && !CallPath.routesOverNodes(settings)
            ? binding.usable()
            : null;
    return binding
        .batch()
        .flush(
            settings.identity(),
            closing,
            () ->
                cached != null
                    ? CompletableFuture.completedFuture(cached)
                    : establish(settings, binding));
  }

  /** New connections use {@code next} from now on; open ones keep the context they have. */
  public void reloadTls(SslContext next) {
    transports.reloadTls(next);
    pool.onCredentialsChanged();
  }

  /** Finds or opens a connection for the proxy, as its first call would. */
  @Override
  public CompletableFuture<RequestChannel> establish(ProxySettings settings, ProxyBinding binding) {
    if (CallPath.routesOverNodes(settings)) {
      return binding.router(this).route(settings, Set.of(), 0);
    }
    return finder.find(settings, binding, 0);
  }

  /**
   * Connects eagerly: a pinned proxy its connection; a load-balanced one every node, done once one
   * is connected.
   */
  public CompletableFuture<Void> connectAsync(ProxySettings settings, ProxyBinding binding) {
    if (CallPath.routesOverNodes(settings)) {
      return binding.router(this).connectAny(settings);
    }
    return establish(settings, binding).thenApply(c -> null);
  }

  /**
   * The node router shared by every proxy with the same endpoints, connection id, strategy, mode
   * and version range.
   */
  @Override
  public NodeRouter routerFor(ProxySettings settings) {
    return routers.routerFor(settings);
  }

  // ---- what node groups, streams and calls ask of the runtime ----

  @Override
  public SerialExecutor control() {
    return control;
  }

  @Override
  public Scheduler.Cancellable scheduleOnControl(Runnable task, long delayNanos) {
    return OwnedTimer.schedule(scheduler, control, task, delayNanos);
  }

  @Override
  public Scheduler.Cancellable scheduleOnControl(Runnable task, Duration delay) {
    return scheduleOnControl(task, delay.toNanos());
  }

  /** The scheduler every timer of the runtime keeps time with. */
  public Scheduler scheduler() {
    return scheduler;
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
  public CompletableFuture<RequestChannel> awaitReady(
      Candidate candidate, String connectionId, long deadlineNanos) {
    return pool.supervisor(candidate, connectionId).obtain(candidate, true, deadlineNanos);
  }

  @Override
  public boolean isCompatible(ProxySettings settings, RequestChannel c) {
    return settings.acceptsServerOf(c);
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
  public CallTimeline.Wait waitAmong(List<Endpoint> endpoints) {
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
    return reports.status(pool.all(), routers.all());
  }

  /** The runtime's connection side: its pool, and the host of its connections and supervisors. */
  ConnectionHub connections() {
    return connections;
  }

  @Override
  public StreamItemCounts streamItems() {
    return reports.streamItems();
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

  @Override
  public ClientConfig config() {
    return config;
  }

  /**
   * Drains like a server's graceful shutdown: no new calls, pending calls get their answers (at
   * most {@code tether.close.grace}), then every connection closes and the event loops stop.
   */
  public Future<?> shutdown() {
    closing = true;
    pool.stopDialling();
    roundTimer.close(); // after the supervisors shut: the rounds waiting fail fast on them
    routers.onRuntimeClosed();
    pool.drainAll(config.closeGrace().toNanos());
    Future<?> stopped = transports.shutdown();
    stopped.addListener(f -> pool.onLoopsStopped());
    stopped.addListener(f -> events.close());
    return stopped;
  }
}
