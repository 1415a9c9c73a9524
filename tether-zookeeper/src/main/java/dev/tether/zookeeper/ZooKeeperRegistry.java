package dev.tether.zookeeper;

import dev.tether.TetherServer;
import dev.tether.observe.TetherEvent;
import dev.tether.observe.TetherListener;
import dev.tether.spi.Ticker;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tether on Apache ZooKeeper (docs/guide.md, "ZooKeeper"): registers servers as ephemeral nodes
 * under {@code <root>/services/<service>/<serverId>}, watches them for clients ({@link
 * #discovery}), and elects a cluster's primary ({@link #joinCluster}). One Curator session per
 * registry; thread-safe.
 */
public final class ZooKeeperRegistry implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ZooKeeperRegistry.class);

  private final CuratorFramework client;
  private final String connectString;
  private final ZooKeeperPaths paths;
  private final Duration connectionTimeout;
  private final TetherListener listener;
  private final Ticker ticker;
  private final List<AutoCloseable> owned = new CopyOnWriteArrayList<>();

  private ZooKeeperRegistry(Builder b) {
    this.connectString = b.connectString;
    this.paths = new ZooKeeperPaths(b.root);
    this.connectionTimeout = b.connectionTimeout;
    this.listener = b.listener;
    this.ticker = b.ticker;
    this.client =
        CuratorFrameworkFactory.builder()
            .connectString(b.connectString)
            .sessionTimeoutMs((int) b.sessionTimeout.toMillis())
            .connectionTimeoutMs((int) b.connectionTimeout.toMillis())
            // Bounded, so that a withdrawal while ZooKeeper is down delays a shutdown by seconds,
            // not minutes.
            .retryPolicy(new ExponentialBackoffRetry(100, 3))
            // The connect string given is the one to use (it may name a proxy): do not follow the
            // ensemble's config.
            .ensembleTracker(false)
            .build();
    client
        .getConnectionStateListenable()
        .addListener((c, state) -> onConnectionStateChanged(state));
    client.start();
  }

  /** A registry on {@code connectString} ("host:port[,host:port...]") with root "/tether". */
  public static ZooKeeperRegistry connect(String connectString) {
    return builder(connectString).build();
  }

  public static Builder builder(String connectString) {
    return new Builder(connectString);
  }

  /**
   * Registers every service of a started server with weight 1, waits (up to the connection timeout)
   * until ZooKeeper holds the nodes, and withdraws them when the server's graceful shutdown starts,
   * before it sends GOAWAY.
   */
  public Registration register(TetherServer server) {
    return register(server, 1);
  }

  /** As {@link #register(TetherServer)}, with the weight stored beside the endpoints. */
  public Registration register(TetherServer server, int weight) {
    if (server.endpoints().isEmpty()) {
      throw new IllegalStateException("start the server before registering it");
    }
    Registration r = Registration.create(client, paths, server, weight, connectionTimeout);
    server.onShutdownStarting(r::withdraw);
    owned.add(r);
    return r;
  }

  /** A live view of the servers of {@code service}, any version. */
  public ZooKeeperDiscovery discovery(String service) {
    return discovery(service, null);
  }

  /**
   * A live view of the servers of {@code service} whose version is in {@code versionRange} (Maven
   * notation, e.g. {@code "[2.0,3.0)"}; null for any). Waits up to the connection timeout for the
   * first view.
   */
  public ZooKeeperDiscovery discovery(String service, String versionRange) {
    VersionRange versions =
        versionRange == null ? VersionRange.ANY : VersionRange.parse(versionRange);
    ZooKeeperDiscovery d =
        new ZooKeeperDiscovery(client, paths.service(service), service, versions)
            .start(connectionTimeout);
    owned.add(d);
    return d;
  }

  /**
   * Enters {@code server} in the leader election of {@code cluster}: the leader's endpoint becomes
   * the primary of the topology every member announces, the others its alternates. The server
   * leaves the election when its graceful shutdown starts or it is closed; a leader that loses
   * ZooKeeper stops naming itself primary before its session can expire (docs/guide.md).
   */
  public ClusterMembership joinCluster(TetherServer server, String cluster) {
    ClusterMembership m =
        new ClusterMembership(client, paths.election(cluster), cluster, server).start();
    server.onShutdownStarting(m::close);
    server.onClosing(m::close);
    owned.add(m);
    return m;
  }

  /** The Curator client underneath, for applications that keep more in ZooKeeper. */
  public CuratorFramework curator() {
    return client;
  }

  private void onConnectionStateChanged(ConnectionState state) {
    if (state == ConnectionState.SUSPENDED || state == ConnectionState.LOST) {
      emit(
          TetherEvent.Kind.CONNECTION_CLOSED,
          "ZooKeeper "
              + connectString
              + " unreachable ("
              + state
              + "): discoveries keep their last known servers");
    } else if (state.isConnected()) {
      emit(
          TetherEvent.Kind.CONNECTED,
          "ZooKeeper "
              + connectString
              + " reachable ("
              + state
              + "): discoveries follow the registry");
    }
  }

  private void emit(TetherEvent.Kind kind, String detail) {
    log.info(detail);
    if (listener == null) {
      return;
    }
    try {
      listener.onEvent(new TetherEvent(kind, null, detail, null, ticker.nanoTime()));
    } catch (RuntimeException e) {
      log.warn("a registry listener failed; it stays registered", e);
    }
  }

  /**
   * Withdraws every registration, leaves every election, stops every discovery, closes the session.
   */
  @Override
  public void close() {
    for (AutoCloseable c : List.copyOf(owned)) {
      try {
        c.close();
      } catch (Exception e) {
        log.warn("closing {} failed", c, e);
      }
    }
    client.close();
  }

  /** Settings of a registry; {@link #build()} connects. */
  public static final class Builder {
    private final String connectString;
    private String root = "/tether";
    private Duration sessionTimeout = Duration.ofSeconds(30);
    private Duration connectionTimeout = Duration.ofSeconds(5);
    private TetherListener listener;
    private Ticker ticker = Ticker.system();

    private Builder(String connectString) {
      this.connectString = Objects.requireNonNull(connectString);
    }

    /** The node everything lives under ("/tether" by default). */
    public Builder root(String path) {
      root = Objects.requireNonNull(path);
      return this;
    }

    /**
     * How long ZooKeeper keeps a silent session, and so a crashed server's nodes (30 s by default).
     */
    public Builder sessionTimeout(Duration d) {
      sessionTimeout = Objects.requireNonNull(d);
      return this;
    }

    /** How long an operation waits for a connection, and register/discovery for ZooKeeper (5 s). */
    public Builder connectionTimeout(Duration d) {
      connectionTimeout = Objects.requireNonNull(d);
      return this;
    }

    /**
     * Hears when ZooKeeper becomes unreachable (CONNECTION_CLOSED) and reachable again (CONNECTED).
     */
    public Builder listener(TetherListener l) {
      listener = Objects.requireNonNull(l);
      return this;
    }

    /** The clock event timestamps read. */
    public Builder ticker(Ticker t) {
      ticker = Objects.requireNonNull(t);
      return this;
    }

    public ZooKeeperRegistry build() {
      return new ZooKeeperRegistry(this);
    }
  }
}
