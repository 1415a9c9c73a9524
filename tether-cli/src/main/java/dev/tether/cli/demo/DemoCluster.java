package dev.tether.cli.demo;

import dev.tether.Endpoint;
import dev.tether.ExecutionMode;
import dev.tether.Tether;
import dev.tether.cli.kv.DemoServer;
import dev.tether.cli.kv.KeyValue;
import dev.tether.cli.kv.KeyValueStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The demo's servers: each its own {@code TetherServer} on a free loopback port, all sharing one
 * {@link KeyValueStore} as stateless servers share a database. Scenarios disrupt it through its
 * public methods, each of which records what it did on the timeline.
 */
public final class DemoCluster implements AutoCloseable {
  /** The counter warm-up calls increment, apart from the callers' counter. */
  private static final String WARM_UP_COUNTER = "warm-up";

  private final List<Node> nodes;
  private final Timeline timeline;

  /** Where one server is in its life. */
  enum NodeState {
    /** Serving. */
    RUNNING,
    /** Stopped by {@code close()}: connections dropped, calls in flight lost. */
    CLOSED_ABRUPTLY,
    /** Stopped by {@code shutdownGracefully}: GOAWAY sent, calls in flight finished. */
    STOPPED_GRACEFULLY
  }

  /** One server of the cluster; its state changes only on the scenario thread. */
  static final class Node {
    final DemoServer server;
    final IncrementTrap trap;
    volatile NodeState state = NodeState.RUNNING;
    /** Non-null once the node left RUNNING: when, since the callers started. */
    volatile Duration stoppedAt;
    /** Server counts before the callers started (warm-up), subtracted from what is reported. */
    private long servedBefore;
    private long incrementsBefore;

    Node(DemoServer server, IncrementTrap trap) {
      this.server = server;
      this.trap = trap;
    }

    String name() {
      return server.name();
    }

    /** Calls served since counting started. */
    long served() {
      return server.stats().served() - servedBefore;
    }

    /** Increments executed since counting started. */
    long incrementsExecuted() {
      return server.stats().incrementsExecuted() - incrementsBefore;
    }

    void startCounting() {
      servedBefore = server.stats().served();
      incrementsBefore = server.stats().incrementsExecuted();
    }
  }

  private DemoCluster(List<Node> nodes, Timeline timeline) {
    this.nodes = nodes;
    this.timeline = timeline;
  }

  /** Starts {@code size} servers named server-1, server-2, ... on loopback. */
  static DemoCluster start(int size, KeyValueStore store, Timeline timeline) {
    List<Node> nodes = new ArrayList<>();
    try {
      for (int i = 1; i <= size; i++) {
        IncrementTrap trap = new IncrementTrap();
        DemoServer server = DemoServer.start(
            "server-" + i, "tcp -h 127.0.0.1 -p 0", ExecutionMode.EXECUTOR, store, trap);
        nodes.add(new Node(server, trap));
      }
    } catch (RuntimeException e) {
      nodes.forEach(n -> n.server.close());
      throw e;
    }
    return new DemoCluster(List.copyOf(nodes), timeline);
  }

  List<Node> nodes() {
    return nodes;
  }

  /** A proxy string for {@code service} listing every server's endpoints. */
  String proxyString(String service) {
    return service + ":" + nodes.stream()
        .flatMap(n -> n.server.endpoints().stream())
        .map(Endpoint::toString)
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
      KeyValue kv = tether.proxy(node.server.proxyString(DemoServer.KV))
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
    node.server.close();
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
    node.server.close();
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
    node.server.shutdownGracefully(grace);
    markStopped(node, NodeState.STOPPED_GRACEFULLY);
    timeline.record(name + " stopped gracefully");
  }

  private Node running(String name) {
    for (Node n : nodes) {
      if (n.name().equals(name)) {
        if (n.state != NodeState.RUNNING) {
          throw new IllegalStateException(name + " is not running but " + n.state);
        }
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
        n.server.close();
      }
    }
  }
}
