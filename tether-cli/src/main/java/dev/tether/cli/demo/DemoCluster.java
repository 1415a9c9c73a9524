package dev.tether.cli.demo;

import dev.tether.ExecutionMode;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.Topology;
import dev.tether.cli.kv.DemoServer;
import dev.tether.cli.kv.KeyValue;
import dev.tether.cli.kv.KeyValueStore;
import dev.tether.observe.TetherListener;
import dev.tether.testing.StablePorts;
import dev.tether.testkit.FaultProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The demo's servers: each its own {@code TetherServer} on a loopback port, all sharing one {@link
 * KeyValueStore} as stateless servers share a database. A stopped server can be restarted: a new
 * {@code TetherServer} on the same port, as a redeployed process would be, so a client's proxy
 * string stays valid. Scenarios disrupt it through its public methods, each of which records what
 * it did on the timeline. The showcase puts a {@link FaultProxy} in front of each server, so
 * clients dial the proxies and the network itself can fail.
 */
public final class DemoCluster implements AutoCloseable {
  /** The counter warm-up calls increment, apart from the callers' counter. */
  private static final String WARM_UP_COUNTER = "warm-up";

  private static final String LOOPBACK = "127.0.0.1";

  /**
   * How often each server's {@code ticks.tick} stream sends an item: 50 a second, enough to see a
   * gap.
   */
  static final Duration TICK_INTERVAL = Duration.ofMillis(20);

  private final List<Node> nodes;
  private final KeyValueStore store;
  private final Timeline timeline;
  private final ServerLifecycle lifecycle;

  /** Where every server's events go (a status page); null for none. */
  private final TetherListener serverListener;

  /**
   * The cluster view every server announces in WELCOME, restarted ones too; null while none is
   * announced. Written only on the scenario thread.
   */
  private volatile Topology topology;

  /** When {@link #resetConnections} last ran, since the callers started; null before. */
  private volatile Duration lastResetAt;

  /** Where one server is in its life. */
  enum NodeState {
    /** Serving. */
    RUNNING,
    /** Stopped by {@code close()}: connections dropped, calls in flight lost. */
    CLOSED_ABRUPTLY,
    /** Stopped by {@code shutdownGracefully}: GOAWAY sent, calls in flight finished. */
    STOPPED_GRACEFULLY
  }

  /**
   * One server of the cluster, across restarts: its name and port stay, the process behind them
   * changes. Changed only on the scenario thread, which also reads the counts for the report.
   */
  static final class Node {
    private final String name;

    /** The port every incarnation listens on, chosen by the first one. */
    private final int port;

    /**
     * Every server that listened on the port, oldest first; the last one is the current one.
     * Copy-on-write: the status page reads the current one from its own thread.
     */
    private final List<DemoServer> incarnations = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** The current incarnation's trap: a trap catches once, so each incarnation gets its own. */
    private IncrementTrap trap;

    /**
     * The network in front of the server, which clients dial; null when they dial the server
     * itself.
     */
    private final FaultProxy faults;

    volatile NodeState state = NodeState.RUNNING;

    /** True while its fault proxy holds every byte. */
    volatile boolean frozen;

    /**
     * Non-null once the node left RUNNING for the first time: when it last stopped, since the
     * callers started.
     */
    volatile Duration stoppedAt;

    /** Non-null once restarted: when the current incarnation started, since the callers started. */
    volatile Duration restartedAt;

    /**
     * The first incarnation's counts before the callers started (warm-up), subtracted from what is
     * reported.
     */
    private long servedBefore;

    private long incrementsBefore;

    private Node(DemoServer first, IncrementTrap trap, FaultProxy faults) {
      this.name = first.name();
      this.port = first.endpoints().get(0).port();
      this.incarnations.add(first);
      this.trap = trap;
      this.faults = faults;
    }

    /** The endpoint clients dial: the fault proxy's when there is one, else the server's. */
    String clientEndpoint() {
      return "tcp -h " + LOOPBACK + " -p " + (faults == null ? port : faults.port());
    }

    String name() {
      return name;
    }

    int port() {
      return port;
    }

    DemoServer server() {
      return incarnations.get(incarnations.size() - 1);
    }

    /**
     * Calls served since counting started, by every incarnation: a stopped server's count stays
     * part of the total, including calls it finished after the stop was decided.
     */
    long served() {
      return incarnations.stream().mapToLong(s -> s.stats().served()).sum() - servedBefore;
    }

    /** Increments executed since counting started, by every incarnation. */
    long incrementsExecuted() {
      return incarnations.stream().mapToLong(s -> s.stats().incrementsExecuted()).sum()
          - incrementsBefore;
    }

    /**
     * Counts from zero again, over every incarnation so far: a run, or a phase of the showcase,
     * starts.
     */
    void startCounting() {
      servedBefore = incarnations.stream().mapToLong(s -> s.stats().served()).sum();
      incrementsBefore = incarnations.stream().mapToLong(s -> s.stats().incrementsExecuted()).sum();
    }

    /** "running", or how and when it last stopped or restarted, as the summary prints it. */
    String describeState() {
      if (frozen) {
        return "frozen";
      }
      return switch (state) {
        case RUNNING ->
            restartedAt == null
                ? "running"
                : String.format(Locale.ROOT, "restarted at %.1f s", restartedAt.toNanos() / 1e9);
        case CLOSED_ABRUPTLY ->
            String.format(Locale.ROOT, "closed at %.1f s", stoppedAt.toNanos() / 1e9);
        case STOPPED_GRACEFULLY ->
            String.format(Locale.ROOT, "drained at %.1f s", stoppedAt.toNanos() / 1e9);
      };
    }
  }

  private DemoCluster(
      List<Node> nodes,
      KeyValueStore store,
      Timeline timeline,
      ServerLifecycle lifecycle,
      TetherListener serverListener) {
    this.serverListener = serverListener;
    this.nodes = nodes;
    this.store = store;
    this.timeline = timeline;
    this.lifecycle = lifecycle;
  }

  /** Starts {@code size} servers named server-1, server-2, ... on free loopback ports. */
  static DemoCluster start(int size, KeyValueStore store, Timeline timeline) {
    return start(size, store, timeline, ServerLifecycle.NONE, null);
  }

  /**
   * As {@link #start(int, KeyValueStore, Timeline)}, telling {@code lifecycle} of every start and
   * kill, and every server (restarted ones too) telling {@code listener} (null for none).
   */
  static DemoCluster start(
      int size,
      KeyValueStore store,
      Timeline timeline,
      ServerLifecycle lifecycle,
      TetherListener listener) {
    return start(size, store, timeline, lifecycle, listener, false);
  }

  /**
   * As {@link #start(int, KeyValueStore, Timeline)}, each server behind its own fault proxy, which
   * clients dial.
   */
  static DemoCluster startBehindFaultProxies(
      int size, KeyValueStore store, Timeline timeline, TetherListener listener) {
    return start(size, store, timeline, ServerLifecycle.NONE, listener, true);
  }

  private static DemoCluster start(
      int size,
      KeyValueStore store,
      Timeline timeline,
      ServerLifecycle lifecycle,
      TetherListener listener,
      boolean behindFaultProxies) {
    List<Node> nodes = new ArrayList<>();
    try {
      for (int i = 1; i <= size; i++) {
        IncrementTrap trap = new IncrementTrap();
        String name = "server-" + i;
        // Restarts reuse the port: one outside the ephemeral range stays free while the node is
        // down.
        DemoServer server =
            StablePorts.listenOnOne(
                port -> startServer(name, port, store, trap, lifecycle, listener, null));
        nodes.add(
            new Node(
                server,
                trap,
                behindFaultProxies
                    ? FaultProxy.start(LOOPBACK, server.endpoints().get(0).port())
                    : null));
      }
    } catch (RuntimeException e) {
      nodes.forEach(DemoCluster::closeNode);
      throw e;
    }
    return new DemoCluster(List.copyOf(nodes), store, timeline, lifecycle, listener);
  }

  private static DemoServer startServer(
      String name,
      int port,
      KeyValueStore store,
      IncrementTrap trap,
      ServerLifecycle lifecycle,
      TetherListener listener,
      Topology topology) {
    DemoServer server =
        DemoServer.start(
            name,
            "tcp -h " + LOOPBACK + " -p " + port,
            ExecutionMode.EXECUTOR,
            store,
            trap,
            listener,
            TICK_INTERVAL);
    if (topology != null) {
      server.server().setTopology(topology);
    }
    lifecycle.started(server);
    return server;
  }

  List<Node> nodes() {
    return nodes;
  }

  /**
   * Each server's current incarnation, in order (a restarted server's newest, a stopped one's last,
   * which reports itself closed); safe from any thread, for the status page.
   */
  public List<TetherServer> servers() {
    return nodes.stream().map(n -> n.server().server()).toList();
  }

  /**
   * A proxy string for {@code service} listing every server's endpoint. It stays valid across
   * restarts, which reuse the ports, and lists a server that is down too, as a real client's
   * configuration would.
   */
  String proxyString(String service) {
    return service
        + ":"
        + nodes.stream().map(Node::clientEndpoint).collect(Collectors.joining(":"));
  }

  /** The proxy string of one server alone, as clients dial it. */
  String proxyString(String service, String name) {
    return service + ":" + find(name).clientEndpoint();
  }

  /** The server a client endpoint (in grammar form, as events name it) leads to. */
  Optional<String> serverAt(String clientEndpoint) {
    return nodes.stream()
        .filter(n -> n.clientEndpoint().equals(clientEndpoint))
        .map(Node::name)
        .findFirst();
  }

  /**
   * Makes {@code primary} the primary of the cluster view every server announces from now on (in
   * WELCOME, restarted servers too), the other servers its alternates in their order, starting
   * after the primary: what a leader election would announce.
   */
  public void announcePrimary(String primary) {
    int first = nodes.indexOf(find(primary));
    List<String> alternates = new ArrayList<>();
    for (int i = 1; i < nodes.size(); i++) {
      alternates.add(nodes.get((first + i) % nodes.size()).clientEndpoint());
    }
    Topology view = Topology.of(find(primary).clientEndpoint(), alternates);
    topology = view;
    nodes.stream()
        .filter(n -> n.state == NodeState.RUNNING)
        .forEach(n -> n.server().server().setTopology(view));
    timeline.record("servers announce " + primary + " as primary, the others as alternates");
  }

  /**
   * Takes a server's whole host down: its fault proxy stops listening (connects are refused) and
   * resets every connection, and the server is closed. Unlike {@link #stopAbruptly}, nothing
   * accepts a connection to it any more, as with a machine that crashed; {@link #restart} brings
   * both back on their ports.
   */
  public void crashHost(String name) {
    Node node = behindFaultProxy(name);
    node.faults.stop();
    node.faults.resetAll();
    node.server().close();
    lifecycle.closedAbruptly(node.server());
    markStopped(node, NodeState.CLOSED_ABRUPTLY);
    timeline.record(
        name + "'s host crashed (its port refuses connects, its connections were reset)");
  }

  /**
   * Resets every connection through a server's fault proxy (RST both ways, as a broken network
   * does) while the server and the proxy go on: clients reconnect to the same server at once.
   */
  public void resetConnections(String name) {
    Node node = behindFaultProxy(name);
    node.faults.resetAll();
    lastResetAt = timeline.elapsed();
    timeline.record(name + "'s connections reset (RST both ways); the server runs on");
  }

  /** When {@link #resetConnections} last ran, since the callers started; null if it never did. */
  Duration lastResetAt() {
    return lastResetAt;
  }

  /** Freezes the network in front of a server: no byte moves either way, no socket closes. */
  public void freeze(String name) {
    Node node = behindFaultProxy(name);
    node.faults.freeze();
    node.frozen = true;
    timeline.record(
        name + "'s network frozen (nothing moves, no socket closes): only heartbeats can tell");
  }

  /** Lets the bytes a frozen network held move on. */
  public void unfreeze(String name) {
    Node node = behindFaultProxy(name);
    node.faults.unfreeze();
    node.frozen = false;
    timeline.record(name + "'s network flows again");
  }

  private Node behindFaultProxy(String name) {
    Node node = find(name);
    if (node.faults == null) {
      throw new IllegalStateException(name + " has no fault proxy in front of it");
    }
    return node;
  }

  /**
   * Calls every operation of every server {@code rounds} times, then zeroes the counts: the first
   * calls of a fresh JVM spend most of a second loading classes, which would show up as timeouts
   * that have nothing to do with the scenario.
   *
   * @return the calls each server received
   */
  int warmUp(Tether tether, int rounds) {
    for (Node node : nodes) {
      KeyValue kv =
          tether
              .proxy(node.server().proxyString(DemoServer.KV))
              .withInvocationTimeout(Duration.ofSeconds(30))
              .as(KeyValue.class);
      for (int r = 0; r < rounds; r++) {
        kv.put("warm-up-" + r, "x");
        kv.get("warm-up-" + r);
        kv.increment(WARM_UP_COUNTER);
        kv.whoami();
      }
    }
    nodes.forEach(Node::startCounting);
    return rounds * 4; // the four calls of each round above
  }

  /** Stops a server with {@code close()}: connections drop at once, nothing drains. */
  public void stopAbruptly(String name) {
    Node node = running(name);
    node.server().close();
    lifecycle.closedAbruptly(node.server());
    markStopped(node, NodeState.CLOSED_ABRUPTLY);
    timeline.record(name + " closed abruptly (close(): connections dropped, calls in flight lost)");
  }

  /**
   * Stops a server with {@code close()} at the moment one of its increments has changed the store
   * but not replied, so that increment's caller cannot know whether it ran. Waits at most {@code
   * patience} for an increment, then closes anyway and says so.
   */
  public void stopAbruptlyDuringIncrement(String name, Duration patience) {
    Node node = running(name);
    node.trap.arm();
    boolean caught;
    try {
      caught = node.trap.awaitCaught(patience);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      caught = false;
    }
    node.server().close();
    lifecycle.closedAbruptly(node.server());
    node.trap.release();
    markStopped(node, NodeState.CLOSED_ABRUPTLY);
    timeline.record(
        name
            + (caught
                ? " closed abruptly while an increment it had executed waited to reply"
                : " closed abruptly (no increment arrived within "
                    + patience.toMillis()
                    + " ms to catch)"));
  }

  /**
   * Stops a server with {@code shutdownGracefully}: returns once it drained or the grace ran out.
   */
  public void stopGracefully(String name, Duration grace) {
    Node node = running(name);
    timeline.record(
        name + " shutting down gracefully (GOAWAY, drain up to " + grace.toSeconds() + " s)");
    node.server().shutdownGracefully(grace);
    markStopped(node, NodeState.STOPPED_GRACEFULLY);
    timeline.record(name + " stopped gracefully");
  }

  /**
   * Starts a new server in place of a stopped one, on the same port and over the same store: what a
   * redeployment does. Its counts add to those of the servers it replaces.
   *
   * @throws IllegalStateException if the server is running
   * @throws RuntimeException if the port cannot be bound again (the node then stays down)
   */
  public void restart(String name) {
    Node node = find(name);
    if (node.state == NodeState.RUNNING) {
      throw new IllegalStateException(name + " is running; stop it before restarting it");
    }
    IncrementTrap trap = new IncrementTrap();
    node.incarnations.add(
        startServer(name, node.port(), store, trap, lifecycle, serverListener, topology));
    node.trap = trap;
    if (node.faults != null) {
      node.faults.restart(); // does nothing unless its host crashed
    }
    node.restartedAt = timeline.elapsed();
    node.state = NodeState.RUNNING;
    timeline.record(
        name + " restarted on the same port (tcp -h " + LOOPBACK + " -p " + node.port() + ")");
  }

  /**
   * One step of a rolling restart: {@link #stopGracefully}, then {@link #restart} on the same port.
   */
  public void restartGracefully(String name, Duration grace) {
    stopGracefully(name, grace);
    restart(name);
  }

  private Node running(String name) {
    Node n = find(name);
    if (n.state != NodeState.RUNNING) {
      throw new IllegalStateException(name + " is not running but " + n.state);
    }
    return n;
  }

  private Node find(String name) {
    for (Node n : nodes) {
      if (n.name().equals(name)) {
        return n;
      }
    }
    throw new IllegalArgumentException("no server named " + name);
  }

  private void markStopped(Node node, NodeState state) {
    node.stoppedAt = timeline.elapsed();
    node.state = state;
  }

  /**
   * Closes the servers still running and the fault proxies; the demo is over, so nothing needs to
   * drain.
   */
  @Override
  public void close() {
    nodes.forEach(DemoCluster::closeNode);
  }

  private static void closeNode(Node n) {
    if (n.state == NodeState.RUNNING) {
      n.server().close();
    }
    if (n.faults != null) {
      n.faults.close();
    }
  }
}
