package dev.tether.admin;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.observe.TetherListener;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A live status page for runtimes and servers of this JVM, served over HTTP on loopback by default:
 * {@code /} (the page), {@code /status.json}, {@code /events} (server-sent events) and {@code
 * /metrics} (Prometheus text, when tether-micrometer and micrometer-registry-prometheus are on the
 * class path; otherwise 501 naming the missing jars, and the rest works with any registry or none).
 * {@link #close()} stops it; the observed runtimes are not closed.
 *
 * <pre>{@code
 * TetherAdmin.Builder admin = TetherAdmin.builder().bind("127.0.0.1", 0);
 * Tether tether = Tether.builder().listener(admin.listener()).build();   // or tether.addListener(...)
 * TetherAdmin started = admin.observe(tether).build().start();
 * System.out.println(started.url());
 * }</pre>
 */
public final class TetherAdmin implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TetherAdmin.class);

  /** How often the page's snapshots are taken and pushed. */
  public static final Duration SAMPLE_INTERVAL = Duration.ofMillis(500);

  /** Bytes queued for one page beyond which it counts as too slow and is dropped. */
  static final int STREAM_HIGH_WATER_BYTES = 256 * 1024;

  /** The largest request accepted; the page's requests are a few hundred bytes. */
  static final int MAX_REQUEST_BYTES = 16 * 1024;

  private final String host;
  private final int requestedPort;
  private final AdminLimits limits;
  private final HostCheck hosts;
  private final boolean hasToken;
  private final AdminSite site;
  private final ScheduledExecutorService worker;

  /** Null while an optional metrics jar is missing. */
  private final AutoCloseable metrics;

  /** Set by {@link #start()}, null before. */
  private EventLoopGroup loops;

  private Channel listening;

  /** Set by {@link #start()}, null before. */
  private ConnectionCap cap;

  private TetherAdmin(Builder b, ScheduledExecutorService worker) {
    this.host = b.host;
    this.requestedPort = b.port;
    this.limits = b.limits;
    this.hosts = new HostCheck(b.allowedHosts);
    this.hasToken = b.accessToken != null;
    this.worker = worker;
    String missingJars = MetricsJars.missing();
    PrometheusText prometheus =
        missingJars == null ? new PrometheusText(b.clients, b.servers) : null;
    this.metrics = prometheus;
    ObjectMapper json = new ObjectMapper();
    List<TetherServer> fixed = List.copyOf(b.servers);
    List<Supplier<? extends Collection<TetherServer>>> changing = List.copyOf(b.changingServers);
    StatusBoard board =
        new StatusBoard(json, b.clock, b.clients, () -> serversNow(fixed, changing));
    Supplier<String> metricsText = prometheus;
    this.site = new AdminSite(json, board, b.ring, worker, b.accessToken, metricsText, missingJars);
  }

  public static Builder builder() {
    return new Builder();
  }

  private static List<TetherServer> serversNow(
      List<TetherServer> fixed, List<Supplier<? extends Collection<TetherServer>>> changing) {
    if (changing.isEmpty()) {
      return fixed;
    }
    List<TetherServer> now = new ArrayList<>(fixed);
    for (Supplier<? extends Collection<TetherServer>> s : changing) {
      now.addAll(s.get());
    }
    return now;
  }

  /** Binds and starts sampling; returns once the port is open. */
  public synchronized TetherAdmin start() {
    if (loops != null) {
      throw new IllegalStateException("already started");
    }
    // Native epoll where the platform has it, as Tether's own transports: a poll every 10 ms is a
    // wakeup every 10 ms, and epoll's costs less than NIO's selector.
    boolean epoll = io.netty.channel.epoll.Epoll.isAvailable();
    loops =
        new MultiThreadIoEventLoopGroup(
            1,
            new DefaultThreadFactory("tether-admin-http", true),
            epoll ? io.netty.channel.epoll.EpollIoHandler.newFactory() : NioIoHandler.newFactory());
    AdminHandler handler = new AdminHandler(site, hosts);
    cap = new ConnectionCap(limits.maxConnections());
    ServerBootstrap bootstrap =
        new ServerBootstrap()
            .group(loops)
            .channel(
                epoll
                    ? io.netty.channel.epoll.EpollServerSocketChannel.class
                    : NioServerSocketChannel.class)
            .childOption(
                ChannelOption.WRITE_BUFFER_WATER_MARK,
                new WriteBufferWaterMark(STREAM_HIGH_WATER_BYTES / 2, STREAM_HIGH_WATER_BYTES))
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ConnectionTimers timers =
                        new ConnectionTimers(limits.headerDeadline().toNanos());
                    ch.pipeline()
                        .addLast(cap)
                        .addLast(
                            new IdleStateHandler(
                                0, 0, limits.idleTimeout().toNanos(), TimeUnit.NANOSECONDS))
                        .addLast(timers)
                        .addLast(timers.decoder(4096, 8192, 8192))
                        .addLast(new HttpResponseEncoder())
                        .addLast(new HttpObjectAggregator(MAX_REQUEST_BYTES))
                        .addLast(timers.completion())
                        .addLast(handler);
                  }
                });
    try {
      listening =
          bootstrap
              .bind(new InetSocketAddress(host, requestedPort))
              .syncUninterruptibly()
              .channel();
    } catch (RuntimeException e) {
      loops.shutdownGracefully(0, 0, TimeUnit.SECONDS);
      throw e;
    }
    warnWhenExposed();
    long periodMillis = SAMPLE_INTERVAL.toMillis();
    worker.scheduleWithFixedDelay(this::tick, 0, periodMillis, TimeUnit.MILLISECONDS);
    return this;
  }

  /** The page has no TLS: off loopback, without a token, anyone on the network may read it. */
  private void warnWhenExposed() {
    if (!hasToken && !address().getAddress().isLoopbackAddress()) {
      log.warn(
          "status page {} listens beyond loopback without an access token: anyone who reaches"
              + " the port can read it; set accessToken(...) and put TLS in front of it",
          url());
    }
  }

  /** Whether the page listens beyond loopback without an access token. */
  public boolean exposedWithoutToken() {
    return !hasToken && !address().getAddress().isLoopbackAddress();
  }

  /** Admin connections open now (never more than the builder's {@code maxConnections}). */
  int openConnections() {
    return cap == null ? 0 : cap.open();
  }

  private void tick() {
    try {
      site.tick();
    } catch (RuntimeException e) {
      // A runtime closing under the page: the next tick tries again; the page shows the gap.
    }
  }

  /** The page's address, {@code "http://127.0.0.1:PORT/"}. */
  public String url() {
    InetSocketAddress a = address();
    String h = a.getAddress().getHostAddress();
    return "http://" + (h.contains(":") ? "[" + h + "]" : h) + ":" + a.getPort() + "/";
  }

  /** The bound address; the port is the real one when 0 was asked for. */
  public synchronized InetSocketAddress address() {
    if (listening == null) {
      throw new IllegalStateException("not started");
    }
    return (InetSocketAddress) listening.localAddress();
  }

  /** How many pages have {@code /events} open now. */
  public int openStreams() {
    return site.streams().size();
  }

  /** Closes the port, every open stream and the sampler; observed runtimes go on. */
  @Override
  public synchronized void close() {
    worker.shutdownNow();
    site.close();
    if (listening != null) {
      listening.close().syncUninterruptibly();
      loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
    if (metrics != null) {
      try {
        metrics.close();
      } catch (Exception e) {
        throw new IllegalStateException("closing the metrics registry failed", e);
      }
    }
  }

  /** What the page observes and where it listens; 127.0.0.1 on an ephemeral port by default. */
  public static final class Builder {
    private String host = "127.0.0.1";
    private int port;
    private String accessToken;
    private AdminLimits limits = AdminLimits.DEFAULTS;
    private final Set<String> allowedHosts = new LinkedHashSet<>();

    /** The chart's and the event list's times are wall-clock times, shown to a person. */
    private final Clock clock = Clock.systemUTC();

    private final EventRing ring = new EventRing(clock);
    private final List<Tether> clients = new ArrayList<>();
    private final List<TetherServer> servers = new ArrayList<>();
    private final List<Supplier<? extends Collection<TetherServer>>> changingServers =
        new ArrayList<>();

    private Builder() {}

    /**
     * Where to listen. Any address other than loopback exposes connection details to the network:
     * set an {@link #accessToken(String)} then (the page warns at start when there is none), and
     * since the page speaks plain HTTP, put TLS in front of it (a reverse proxy) so the token does
     * not cross the network in clear. Reached by a host name, the page needs {@link
     * #allowHost(String)}.
     */
    public Builder bind(String host, int port) {
      this.host = Objects.requireNonNull(host, "host");
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port " + port + " is not 0-65535");
      }
      this.port = port;
      return this;
    }

    /** Shows this runtime's connections and nodes; its events need {@link #listener()} too. */
    public Builder observe(Tether tether) {
      clients.add(Objects.requireNonNull(tether, "tether"));
      return this;
    }

    /** Shows this server's state, connections, in-flight and served counts. */
    public Builder observe(TetherServer server) {
      servers.add(Objects.requireNonNull(server, "server"));
      return this;
    }

    /**
     * The listener feeding the page's list of recent events: give it to {@code
     * Tether.builder().listener(...)} and {@code TetherServer.builder().listener(...)}, or to
     * {@code addListener(...)} of a runtime or server already running (it then sees the events from
     * that moment on). One listener serves every runtime.
     */
    public TetherListener listener() {
      return ring;
    }

    /**
     * Shows the servers {@code current} returns, asked afresh at every sample: for servers that
     * come and go, such as one restarted as a new {@code TetherServer} on the same port. It is
     * called on the page's own thread and must be cheap and thread-safe. {@code /metrics} covers
     * only servers given to {@link #observe(TetherServer)}.
     */
    public Builder observeServers(Supplier<? extends Collection<TetherServer>> current) {
      changingServers.add(Objects.requireNonNull(current, "current"));
      return this;
    }

    /** Every request must then carry {@code ?token=} or {@code Authorization: Bearer}. */
    public Builder accessToken(String token) {
      if (token != null && token.isEmpty()) {
        throw new IllegalArgumentException("an empty access token protects nothing");
      }
      this.accessToken = token;
      return this;
    }

    /**
     * A host name (without port) the page is reached by, beyond its IP addresses and {@code
     * localhost}: a request naming any other host is answered {@code 421 Misdirected Request}, so a
     * web page cannot read the status page through DNS rebinding.
     */
    public Builder allowHost(String name) {
      if (name == null || name.isBlank() || name.contains(":")) {
        throw new IllegalArgumentException("a host name without port: " + name);
      }
      allowedHosts.add(name);
      return this;
    }

    /**
     * At most {@code n} admin connections open at once (default 64); one more is answered {@code
     * 503} and closed, so the page cannot take the descriptors the service needs.
     */
    public Builder maxConnections(int n) {
      limits = limits.withMaxConnections(n);
      return this;
    }

    /**
     * A connection with nothing read or written for this long is closed (default 30 s). An open
     * page's event stream is exempt: it is quiet between updates, and dropped instead when its
     * socket stops taking them.
     */
    public Builder idleTimeout(Duration timeout) {
      limits = limits.withIdleTimeout(timeout);
      return this;
    }

    /**
     * A request must arrive whole within this long of its first byte (default 10 s), or it is
     * answered {@code 408} and its connection closed: a client trickling its headers cannot hold a
     * connection open.
     */
    public Builder headerDeadline(Duration deadline) {
      limits = limits.withHeaderDeadline(deadline);
      return this;
    }

    public TetherAdmin build() {
      ScheduledExecutorService worker =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "tether-admin");
                t.setDaemon(true);
                return t;
              });
      return new TetherAdmin(this, worker);
    }
  }
}
