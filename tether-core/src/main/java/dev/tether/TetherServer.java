package dev.tether;

import dev.tether.codec.OperationTable;
import dev.tether.internal.EventBus;
import dev.tether.observe.ServerStatus;
import dev.tether.observe.TetherListener;
import dev.tether.protocol.ProtocolVersion;
import dev.tether.protocol.Welcome;
import dev.tether.server.RawServiceHandler;
import dev.tether.server.ServerRuntime;
import dev.tether.server.ServiceHandler;
import dev.tether.server.TypedServiceHandler;
import dev.tether.server.TypedStreamService;
import dev.tether.spi.WireProtocol;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.Executor;

/**
 * A server: listens on its endpoints and serves registered services. Build it, {@link #start()} it,
 * then read {@link #endpoints()} for the real ports. Stop with {@link #shutdownGracefully} (drain)
 * or {@link #close()} (drop connections now).
 */
public final class TetherServer implements AutoCloseable {
  private final ServerSettings settings;
  private final String serverId = UUID.randomUUID().toString();
  private final ServerRuntime runtime;
  private final EventBus events;
  private volatile boolean started;
  private volatile Topology topology;
  private final ShutdownStartingActions shutdownStarting = new ShutdownStartingActions();
  private final ShutdownStartingActions closing = new ShutdownStartingActions();

  private TetherServer(ServerSettings s) {
    this.settings = s;
    this.topology = s.topology();
    this.events = new EventBus(s.listeners(), s.ticker(), "tether-server-events");
    this.runtime = ServerAssembly.runtime(s, events, this::welcome);
  }

  private Welcome welcome() {
    Topology t = topology;
    return new Welcome(
        serverId,
        settings.version(),
        (int) settings.properties().readerIdle().toMillis(),
        settings.maxFrameSize(),
        settings.maxConcurrentRequests(),
        t == null ? "" : t.primary(),
        t == null ? List.of() : t.alternates(),
        t == null ? 0 : t.epoch());
  }

  /**
   * The cluster view sent to clients that connect from now on, in WELCOME, and to the clients
   * connected now that speak protocol 1.1, in a TOPOLOGY frame (1.0 clients learn it when they
   * reconnect); null for none. When the view before named one of this server's endpoints primary
   * and {@code t} names another, the clients connected now are also moved on as from an aged
   * connection (their calls in flight finish here, their sessions end). Returns at once: the frames
   * leave on the connections' loops. Concurrent calls take effect one at a time, so the move is
   * decided on the view each call really replaced.
   */
  public synchronized void setTopology(Topology t) {
    Topology before = topology;
    topology = t;
    runtime.announceTopology();
    if (t != null && PrimaryRole.of(this, before) && !PrimaryRole.of(this, t)) {
      runtime.noLongerPrimary("this server is no longer the primary; " + t.primary() + " is");
    }
  }

  public Topology topology() {
    return topology;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Binds every endpoint; throws if one cannot be bound (nothing stays bound then). */
  public synchronized TetherServer start() {
    if (!started) {
      runtime.start();
      started = true;
      if (settings.tlsWatch() != null) {
        runtime.watchTls(settings.tls().pemFiles(), settings.tlsWatch(), this::reloadTls);
      }
    }
    return this;
  }

  /** The endpoints really listened on, with real ports after {@code -p 0}. */
  public List<Endpoint> endpoints() {
    return runtime.boundEndpoints();
  }

  /** {@code service + ":" + every bound endpoint}, ready for {@link Tether#proxy(String)}. */
  public String proxyString(String service) {
    StringBuilder sb =
        new StringBuilder(
            new ParsedProxy(service, InvocationMode.TWOWAY, false, List.of()).toString());
    endpoints().forEach(e -> sb.append(':').append(e));
    return sb.toString();
  }

  public String serverId() {
    return serverId;
  }

  /**
   * The names of the registered services, stream services too, in the order they were registered.
   */
  public List<String> serviceNames() {
    return settings.serviceNames();
  }

  /** The application version this server announces in WELCOME ("0.0.0" unless set). */
  public String version() {
    return settings.version();
  }

  /**
   * Runs {@code action} when {@link #shutdownGracefully} is first called, before the server stops
   * accepting or sends GOAWAY, so a registry can withdraw it while it still serves and clients stop
   * routing to it before the drain. Actions run once, in the order added, on the caller's thread;
   * one that throws is logged and the shutdown goes on. {@link #close()} runs none.
   */
  public void onShutdownStarting(Runnable action) {
    shutdownStarting.add(action);
  }

  /**
   * Runs {@code action} when {@link #close()} is first called, before the connections drop, so a
   * registry can give up what the server held (its cluster leadership). Same rules as {@link
   * #onShutdownStarting}.
   */
  public void onClosing(Runnable action) {
    closing.add(action);
  }

  /**
   * Builds a new TLS context from the same configuration (PEM files are read again, so a renewed
   * certificate or CA takes effect) and uses it for connections accepted from now on; open
   * connections go on with theirs. A configuration that no longer builds (a key that is not its
   * certificate's, say) throws {@link IllegalArgumentException}, logs a WARN, emits {@code
   * TLS_RELOAD_REFUSED} and leaves the current context in force; a reload that works emits {@code
   * TLS_RELOADED}.
   *
   * @throws IllegalStateException when the server has no TLS configured
   */
  public void reloadTls() {
    if (settings.tls() == null) {
      throw new IllegalStateException(
          "this server has no TLS configured (TetherServer.builder().tls(...))");
    }
    TlsReload.run(settings::tlsContext, runtime::reloadTls, "server", events);
  }

  /** A snapshot: lifecycle state, open connections, requests in flight, requests served. */
  public ServerStatus status() {
    return runtime.status();
  }

  /**
   * Adds a listener while the server runs, beside the builder's {@code listener(l)}: it receives
   * the events emitted from now on, in order, on the server's event thread. Safe from any thread.
   */
  public void addListener(TetherListener l) {
    events.add(l);
  }

  /**
   * Removes {@code l} (one registration of that instance): events emitted from now on skip it;
   * those emitted before may still reach it, in order, just after this returns. Returns false when
   * it was not registered.
   */
  public boolean removeListener(TetherListener l) {
    return events.remove(l);
  }

  /** How many client connections are open now. */
  public int connectionCount() {
    return runtime.connectionCount();
  }

  /**
   * Stops accepting, sends GOAWAY on every connection, finishes accepted requests, waits for
   * clients to close (at most {@code grace}), then frees threads. Returns when done.
   */
  public void shutdownGracefully(Duration grace) {
    if (started) {
      shutdownStarting.runOnce(serverId);
    }
    runtime.shutdownGracefully(grace);
  }

  /** Drops every connection at once, without draining, and frees threads. */
  @Override
  public void close() {
    closing.runOnce(serverId);
    runtime.close();
  }

  /**
   * Settings of a server; {@link #build()} makes an unstarted server from a copy of them, so a
   * builder may be changed and built again without affecting the servers it built.
   */
  public static final class Builder extends RuntimeBuilder<Builder> {
    private final List<Endpoint> endpoints = new ArrayList<>();
    private final Map<String, ServiceHandler> services = new LinkedHashMap<>();
    private final Map<String, RawStreamService> streamServices = new LinkedHashMap<>();
    private Executor executor;
    private String version = "0.0.0";
    private int threads;
    private int maxFrameSize = ProtocolVersion.DEFAULT_MAX_FRAME_SIZE;
    private int maxConcurrentRequests = 10_000;
    private Topology topology;
    private final List<ServerInterceptor> interceptors = new ArrayList<>();

    /** Null unless callObserver was called. */
    private ServerCallObserver callObserver;

    private final List<WireProtocol> wireProtocols = new ArrayList<>();

    private Builder() {}

    @Override
    Builder self() {
      return this;
    }

    /**
     * Another protocol for the stream endpoints, beside Tether's: each connection's first bytes
     * choose (for gRPC, see the tether-grpc module). Any number, consulted in the order added.
     */
    public Builder wireProtocol(WireProtocol p) {
      wireProtocols.add(Objects.requireNonNull(p));
      return this;
    }

    /** Endpoints in grammar form, ':'-separated, e.g. {@code "tcp -h 127.0.0.1 -p 0"}. */
    public Builder endpoints(String endpointList) {
      endpoints.addAll(Endpoint.parseList(endpointList));
      return this;
    }

    /**
     * A typed service: each method is an operation of its name (a stream when it returns
     * Flow.Publisher).
     */
    public <T> Builder service(String name, Class<T> iface, T implementation) {
      if (OperationTable.of(iface).hasStreams()) {
        streamService(name, new TypedStreamService(iface, implementation, codec));
      }
      return register(
          services, "service", name, new TypedServiceHandler(iface, implementation, codec));
    }

    /** An untyped service receiving every operation of its name. */
    public Builder service(String name, RawService service) {
      return register(services, "service", name, new RawServiceHandler(service));
    }

    /**
     * A stream service: each stream opened on {@code name} gets the publisher {@code service}
     * returns for it.
     */
    public Builder streamService(String name, RawStreamService service) {
      return register(streamServices, "stream service", name, Objects.requireNonNull(service));
    }

    private <S> Builder register(Map<String, S> registry, String kind, String name, S handler) {
      if (registry.putIfAbsent(Objects.requireNonNull(name), handler) != null) {
        throw new IllegalArgumentException(kind + " \"" + name + "\" is registered twice");
      }
      return this;
    }

    /**
     * Where service code runs: the executor (default), the event loop (DIRECT), the executor one
     * request per connection at a time, in arrival order (SERIALIZED), or a virtual thread per call
     * (VIRTUAL_THREADS, Java 21 or later). Same as the property {@code
     * tether.server.executionMode}.
     */
    public Builder executionMode(ExecutionMode m) {
      return property(ServerProperties.EXECUTION_MODE, Objects.requireNonNull(m).name());
    }

    /**
     * Runs service code on this executor instead of the server's own pool, which keeps a few
     * threads per core and grows to 256 while calls block: services that block for longer or in
     * greater numbers (remote calls, locks) should pass an executor sized for how many may block at
     * once. Either way up to 1,024 calls wait for a thread before new ones are refused; an executor
     * that rejects work makes the server answer REFUSED once none of its tasks is left.
     */
    public Builder executor(Executor e) {
      executor = e;
      return this;
    }

    /**
     * The cluster view (primary, alternates) sent to clients in WELCOME, for the client-reroute
     * behaviour.
     */
    public Builder topology(Topology t) {
      topology = t;
      return this;
    }

    /** The application version sent to clients in WELCOME. */
    public Builder version(String v) {
      version = Objects.requireNonNull(v);
      return this;
    }

    /** Event-loop threads; 0 (default) lets Netty choose. */
    public Builder threads(int n) {
      threads = n;
      return this;
    }

    public Builder maxFrameSize(int bytes) {
      maxFrameSize = bytes;
      return this;
    }

    /**
     * How many requests may be in flight on one connection (default 10,000), announced in WELCOME:
     * clients open extra connections rather than pass it.
     */
    public Builder maxConcurrentRequests(int n) {
      if (n < 1) {
        throw new IllegalArgumentException("maxConcurrentRequests must be at least 1, got " + n);
      }
      maxConcurrentRequests = n;
      return this;
    }

    /**
     * How many client connections the server serves at once (default unlimited; same as the
     * property {@code tether.server.maxConnections}): the next one is answered GOAWAY
     * (TOO_MANY_CONNECTIONS) at its handshake, runs nothing, and its client tries another server.
     */
    public Builder maxConnections(int n) {
      if (n < 1) {
        throw new IllegalArgumentException("maxConnections must be at least 1, got " + n);
      }
      return property("tether.server.maxConnections", String.valueOf(n));
    }

    /**
     * How many streams one connection may have open (default 100; same as the property {@code
     * tether.server.maxStreamsPerConnection}): the next opening is answered REFUSED and runs
     * nothing.
     */
    public Builder maxStreamsPerConnection(int n) {
      if (n < 1) {
        throw new IllegalArgumentException("maxStreamsPerConnection must be at least 1, got " + n);
      }
      return property(ServerProperties.MAX_STREAMS_PER_CONNECTION, String.valueOf(n));
    }

    /**
     * How long a client connection is served before the server tells it GOAWAY(MAX_AGE) (same as
     * {@code tether.server.maxConnectionAge}; default: never), each connection within ±10% of it.
     * Its client opens a replacement at once, with names resolved and endpoints chosen again, moves
     * new calls to it once it is ready and closes the old one when answered: no call is refused or
     * fails, so servers started later behind a name or list get traffic from long-lived clients.
     */
    public Builder maxConnectionAge(Duration age) {
      return property("tether.server.maxConnectionAge", age.toMillis() + "ms");
    }

    /**
     * How long an aged connection is still served (same as {@code
     * tether.server.maxConnectionAgeGrace}; default: until its client closes it); at the end the
     * server names the last request it served and closes, and calls still running there fail.
     */
    public Builder maxConnectionAgeGrace(Duration grace) {
      return property("tether.server.maxConnectionAgeGrace", grace.toMillis() + "ms");
    }

    /**
     * Sees each request before its service runs and may refuse it with {@link
     * PermissionDeniedException} (status PERMISSION_DENIED; the service never runs). Any number,
     * run in the order added; the first that throws decides.
     */
    public Builder interceptor(ServerInterceptor i) {
      interceptors.add(Objects.requireNonNull(i));
      return this;
    }

    /**
     * Sees each execution from its start to its answer (for tracing: a span per execution). One per
     * server; without one an execution costs nothing more.
     *
     * @throws IllegalStateException when one is already set
     */
    public Builder callObserver(ServerCallObserver o) {
      if (callObserver != null) {
        throw new IllegalStateException(
            "this builder already has a call observer: " + callObserver);
      }
      callObserver = Objects.requireNonNull(o);
      return this;
    }

    /**
     * A server with these settings; fails naming what is wrong with them (see {@code
     * ServerSettings}).
     */
    public TetherServer build() {
      return new TetherServer(
          new ServerSettings(
              endpoints,
              services,
              streamServices,
              executor,
              tls,
              tlsWatch,
              version,
              threads,
              maxFrameSize,
              maxConcurrentRequests,
              topology,
              listeners,
              interceptors,
              callObserver,
              ticker,
              scheduler,
              random,
              ServerProperties.parse(properties),
              wireProtocols));
    }
  }
}
