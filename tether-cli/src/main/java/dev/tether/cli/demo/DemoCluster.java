package dev.tether.cli.demo;

import dev.tether.ExecutionMode;
import dev.tether.Tether;
import dev.tether.cli.kv.DemoServer;
import dev.tether.cli.kv.KeyValue;
import dev.tether.cli.kv.KeyValueStore;
import dev.tether.observe.TetherListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The demo's servers: each its own {@code TetherServer} on a loopback port, all sharing one
 * {@link KeyValueStore} as stateless servers share a database. A stopped server can be restarted:
 * a new {@code TetherServer} on the same port, as a redeployed process would be, so a client's
 * proxy string stays valid. Scenarios disrupt it through its public methods, each of which
 * records what it did on the timeline.
 */
public final class DemoCluster implements AutoCloseable {
  /** The counter warm-up calls increment, apart from the callers' counter. */
  private static final String WARM_UP_COUNTER = "warm-up";
  private static final String LOOPBACK = "127.0.0.1";

  private final List<Node> nodes;
  private final KeyValueStore store;
  private final Timeline timeline;
  private final ServerLifecycle lifecycle;
  /** Where every server's events go (a status page); null for none. */
  private final TetherListener serverListener;

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
    /** Every server that listened on the port, oldest first; the last one is the current one. */
    private final List<DemoServer> incarnations = new ArrayList<>();
    /** The current incarnation's trap: a trap catches once, so each incarnation gets its own. */
    private IncrementTrap trap;
    volatile NodeState state = NodeState.RUNNING;
    /** Non-null once the node left RUNNING for the first time: when it last stopped, since the callers started. */
    volatile Duration stoppedAt;
    /** Non-null once restarted: when the current incarnation started, since the callers started. */
    volatile Duration restartedAt;
    /** The first incarnation's counts before the callers started (warm-up), subtracted from what is reported. */
    private long servedBefore;
    private long incrementsBefore;

    private Node(DemoServer first, IncrementTrap trap) {
      this.name = first.name();
      this.port = first.endpoints().get(0).port();
      this.incarnations.add(first);
      this.trap = trap;
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
      return incarnations.stream().mapToLong(s -> s.stats().incrementsExecuted()).sum() - incrementsBefore;
    }

    void startCounting() {
      servedBefore = server().stats().served();
      incrementsBefore = server().stats().incrementsExecuted();
    }
  }

  private DemoCluster(List<Node> nodes, KeyValueStore store, Timeline timeline, ServerLifecycle lifecycle,
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
  static DemoCluster start(int size, KeyValueStore store, Timeline timeline, ServerLifecycle lifecycle,
      TetherListener listener) {
    List<Node> nodes = new ArrayList<>();
    try {
      for (int i = 1; i <= size; i++) {
        IncrementTrap trap = new IncrementTrap();
        nodes.add(new Node(startServer("server-" + i, 0, store, trap, lifecycle, listener), trap));
      }
    } catch (RuntimeException e) {
      nodes.forEach(n -> n.server().close());
      throw e;
    }
    return new DemoCluster(List.copyOf(nodes), store, timeline, lifecycle, listener);
  }

  private static DemoServer startServer(String name, int port, KeyValueStore store, IncrementTrap trap,
      ServerLifecycle lifecycle, TetherListener listener) {
    DemoServer server = DemoServer.start(name, "tcp -h " + LOOPBACK + " -p " + port, ExecutionMode.EXECUTOR, store, trap,
        listener);
    lifecycle.started(server);
    return server;
  }

  List<Node> nodes() {
    return nodes;
  }

  /**
   * A proxy string for {@code service} listing every server's endpoint. It stays valid across
   * restarts, which reuse the ports, and lists a server that is down too, as a real client's
   * configuration would.
   */
  String proxyString(String service) {
    return service + ":" + nodes.stream()
        .map(n -> "tcp -h " + LOOPBACK + " -p " + n.port())
        .collect(Collectors.joining(":"));
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
      KeyValue kv = tether.proxy(node.server().proxyString(DemoServer.KV))
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
   * but not replied, so that increment's caller cannot know whether it ran. Waits at most
   * {@code patience} for an increment, then closes anyway and says so.
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
    timeline.record(name + (caught
        ? " closed abruptly while an increment it had executed waited to reply"
        : " closed abruptly (no increment arrived within " + patience.toMillis() + " ms to catch)"));
  }

  /** Stops a server with {@code shutdownGracefully}: returns once it drained or the grace ran out. */
  public void stopGracefully(String name, Duration grace) {
    Node node = running(name);
    timeline.record(name + " shutting down gracefully (GOAWAY, drain up to " + grace.toSeconds() + " s)");
    node.server().shutdownGracefully(grace);
    markStopped(node, NodeState.STOPPED_GRACEFULLY);
    timeline.record(name + " stopped gracefully");
  }

  /**
   * Starts a new server in place of a stopped one, on the same port and over the same store: what
   * a redeployment does. Its counts add to those of the servers it replaces.
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
    node.incarnations.add(startServer(name, node.port(), store, trap, lifecycle, serverListener));
    node.trap = trap;
    node.restartedAt = timeline.elapsed();
    node.state = NodeState.RUNNING;
    timeline.record(name + " restarted on the same port (tcp -h " + LOOPBACK + " -p " + node.port() + ")");
  }

  /** One step of a rolling restart: {@link #stopGracefully}, then {@link #restart} on the same port. */
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

  /** Closes the servers still running; the demo is over, so nothing needs to drain. */
  @Override
  public void close() {
    for (Node n : nodes) {
      if (n.state == NodeState.RUNNING) {
        n.server().close();
      }
    }
  }
}
