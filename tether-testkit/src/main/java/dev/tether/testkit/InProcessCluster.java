package dev.tether.testkit;

import dev.tether.Endpoint;
import dev.tether.InvocationMode;
import dev.tether.ParsedProxy;
import dev.tether.TetherServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;

/**
 * A cluster of Tether servers in this JVM, on loopback, each behind its own {@link FaultProxy}, so
 * that a test can stop, crash, freeze, restart and add nodes while clients call them.
 *
 * <pre>{@code
 * try (InProcessCluster cluster = InProcessCluster.start(3, (node, server) ->
 *          server.service("whoami", (op, payload, ctx) -> String.valueOf(node).getBytes(UTF_8)));
 *      Tether tether = Tether.create()) {
 *   Proxy any = tether.proxy(cluster.proxyString("whoami"));            // every node
 *   Proxy second = tether.proxy("whoami:" + cluster.endpoint(1));       // node 1 only
 *   cluster.kill(1);      // crash: its connections are reset, its endpoint refuses connects
 *   cluster.restart(1);   // a fresh server answers at the same endpoint
 *   cluster.freeze(2);    // node 2 goes silent; every socket stays open
 *   int fourth = cluster.add();
 * }
 * }</pre>
 *
 * <p>Nodes are numbered from 0 in the order they started. A node's <em>endpoint</em> is its fault
 * proxy's, {@code tcp -h 127.0.0.1 -p <port>}; it stays the same for the life of the cluster,
 * whatever happens to the server behind it, so clients only ever see the endpoints. The server
 * listens on a port of its own, {@link #server(int)}{@code .endpoints()}, that clients should not
 * use: calls that go around the proxy escape the faults.
 *
 * <p>A node is <em>up</em> from its start until {@link #stop(int)} or {@link #kill(int)}, and again
 * after {@link #restart(int)}. While it is down its endpoint refuses connects, as a machine with no
 * process on the port does. Network faults ({@link #freeze(int)}, and whatever a test sets on
 * {@link #faultProxy(int)}) belong to the proxy, not to the server: they outlast a restart.
 *
 * <p>Every method may be called from any thread. Changes to the life of one node ({@code stop},
 * {@code kill}, {@code restart}, {@code close}) take effect before they return and happen one at a
 * time per node; different nodes change independently.
 */
public final class InProcessCluster implements AutoCloseable {
  /** How long {@link #stop(int)} lets a node drain. */
  public static final Duration DEFAULT_GRACE = Duration.ofSeconds(10);

  private final BiConsumer<Integer, TetherServer.Builder> configure;
  private final List<ClusterNode> nodes = new CopyOnWriteArrayList<>();

  /** Guarded by {@code this}: once true, {@link #add()} refuses. */
  private boolean closed;

  private InProcessCluster(BiConsumer<Integer, TetherServer.Builder> configure) {
    this.configure = configure;
  }

  /**
   * Starts {@code nodes} servers, each behind its own fault proxy, and returns once all are up.
   *
   * <p>For node {@code i} the cluster makes {@code TetherServer.builder().endpoints("tcp -h
   * 127.0.0.1 -p 0")}, hands it to {@code configure.accept(i, builder)} to register services and
   * settings, then builds and starts it. The callback runs again, with the same index, for every
   * server the cluster builds later: on {@link #restart(int)} and for {@link #add()}. It should not
   * add endpoints: the cluster's proxy forwards to the first one only.
   *
   * @param nodes how many nodes to start; 0 makes an empty cluster to {@link #add()} to
   * @throws IllegalArgumentException if {@code nodes} is negative
   * @throws RuntimeException whatever starting a server or a proxy threw; nothing is left running
   */
  public static InProcessCluster start(
      int nodes, BiConsumer<Integer, TetherServer.Builder> configure) {
    if (nodes < 0) {
      throw new IllegalArgumentException("negative node count " + nodes);
    }
    InProcessCluster cluster = new InProcessCluster(Objects.requireNonNull(configure, "configure"));
    try {
      for (int i = 0; i < nodes; i++) {
        cluster.add();
      }
    } catch (Throwable e) {
      // Throwable: a bind failure arrives as an undeclared IOException.
      cluster.closeAndKeep(e);
      throw e;
    }
    return cluster;
  }

  /**
   * Starts one more node, as {@link #start} started the others, and returns its index (the previous
   * {@link #size()}). Endpoint lists taken before do not include it.
   *
   * @throws IllegalStateException if the cluster is closed
   */
  public synchronized int add() {
    if (closed) {
      throw new IllegalStateException("the cluster is closed");
    }
    int index = nodes.size();
    nodes.add(ClusterNode.start(index, configure));
    return index;
  }

  /** How many nodes the cluster has, up or down. */
  public int size() {
    return nodes.size();
  }

  /** Node {@code i}'s endpoint in grammar form, {@code "tcp -h 127.0.0.1 -p <port>"}. */
  public String endpoint(int i) {
    return node(i).faultProxy().endpoint();
  }

  /** Every node's {@link #endpoint(int)}, in index order, down nodes included. */
  public List<String> endpoints() {
    List<String> endpoints = new ArrayList<>(nodes.size());
    for (ClusterNode node : nodes) {
      endpoints.add(node.faultProxy().endpoint());
    }
    return List.copyOf(endpoints);
  }

  /**
   * {@code service + ":" +} every node's endpoint, ready for {@code tether.proxy(...)}: a proxy
   * that may reach every node, through the fault proxies.
   */
  public String proxyString(String service) {
    List<Endpoint> endpoints = new ArrayList<>(nodes.size());
    for (String endpoint : endpoints()) {
      endpoints.add(Endpoint.parse(endpoint));
    }
    return new ParsedProxy(service, InvocationMode.TWOWAY, false, endpoints).toString();
  }

  /**
   * Node {@code i}'s server: the running one while the node is up, the one that ran last while it
   * is down. {@link #restart(int)} replaces it.
   */
  public TetherServer server(int i) {
    return node(i).server();
  }

  /** The proxy in front of node {@code i}, for faults beyond freezing (latency, cuts, counters). */
  public FaultProxy faultProxy(int i) {
    return node(i).faultProxy();
  }

  /** Whether node {@code i}'s server runs: true from its start until it is stopped or killed. */
  public boolean isUp(int i) {
    return node(i).isUp();
  }

  /** {@link #stop(int, Duration)} with {@link #DEFAULT_GRACE}. */
  public void stop(int i) {
    stop(i, DEFAULT_GRACE);
  }

  /**
   * Shuts node {@code i} down gracefully, returning once it is down: its endpoint refuses new
   * connects at once; the server sends GOAWAY, answers requests it accepted, and closes the
   * connections clients have not closed by {@code grace}. Does nothing when the node is down.
   */
  public void stop(int i, Duration grace) {
    Objects.requireNonNull(grace, "grace");
    node(i).stop(grace);
  }

  /**
   * Crashes node {@code i}: its endpoint refuses new connects, every connection through it is reset
   * (clients see the loss at once, as after a crash they would see it after a timeout), and the
   * server is closed without draining. Does nothing when the node is down.
   */
  public void kill(int i) {
    node(i).kill();
  }

  /**
   * Silences node {@code i}'s network both ways (see {@link FaultProxy#freeze()}): connections stay
   * open, bytes wait; calls to it hang until their timeout. Outlasts stop and restart.
   */
  public void freeze(int i) {
    node(i).faultProxy().freeze();
  }

  /** Lets node {@code i}'s held and later bytes flow again (see {@link FaultProxy#unfreeze()}). */
  public void unfreeze(int i) {
    node(i).faultProxy().unfreeze();
  }

  /**
   * Brings node {@code i} back with a fresh server, built by the cluster's configure callback, at
   * the same endpoint; returns once it answers there. The server listens on its former port when
   * that port is free, on a new one otherwise. A node that is up is killed first, as by {@link
   * #kill(int)}.
   *
   * @throws IllegalStateException if the cluster is closed
   * @throws RuntimeException whatever starting the server threw; the node stays down
   */
  public void restart(int i) {
    node(i).restart();
  }

  /**
   * Closes every server (without draining) and every proxy, stopped and killed nodes included;
   * returns once all are closed. Idempotent. Afterwards the nodes are down and {@link #add()}
   * refuses; the first failure, if any, is thrown once every node was closed.
   */
  @Override
  public void close() {
    RuntimeException failure = closeAndKeep(null);
    if (failure != null) {
      throw failure;
    }
  }

  @Override
  public String toString() {
    return "InProcessCluster" + nodes;
  }

  /** Closes every node; returns the first failure (added to {@code first} when given). */
  private RuntimeException closeAndKeep(Throwable first) {
    synchronized (this) {
      closed = true;
    }
    RuntimeException failure = null;
    for (ClusterNode node : nodes) {
      try {
        node.close();
      } catch (RuntimeException e) {
        if (first != null) {
          first.addSuppressed(e);
        } else if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    return failure;
  }

  private ClusterNode node(int i) {
    return nodes.get(Objects.checkIndex(i, nodes.size()));
  }
}
