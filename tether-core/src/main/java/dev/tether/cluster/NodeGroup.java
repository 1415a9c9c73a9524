package dev.tether.cluster;

import dev.tether.Endpoint;
import dev.tether.EndpointSelection;
import dev.tether.IncompatibleServerException;
import dev.tether.NoAvailableNodeException;
import dev.tether.TetherException;
import dev.tether.client.Candidate;
import dev.tether.client.ClientRuntime;
import dev.tether.client.ConnectionKey;
import dev.tether.client.NodeRouter;
import dev.tether.client.ProxySettings;
import dev.tether.client.RequestChannel;
import dev.tether.internal.Backoff;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The nodes behind one group of load-balanced proxies (DESIGN.md 7.2, 7.3; seed 004): each call
 * goes to a live node the strategy picks; a node whose connection fails or breaks is marked dead
 * at once and skipped, and a supervisor reconnects it under the node backoff and marks it alive
 * again. With every node dead, calls fail fast with NoAvailableNodeException, or, for proxies that
 * wait for ready, wait until a node is back or their deadline passes.
 */
final class NodeGroup implements NodeRouter {
  private static final Logger log = LoggerFactory.getLogger("dev.tether.trace.nodes");

  private final ClientRuntime runtime;
  private final NodeSelector strategy;
  private final Backoff supervision;
  private final String connectionId;
  private final Object lock = new Object();
  /** The nodes, in the order selection listed them; replaced when the endpoints change. */
  private volatile List<Node> nodes = List.of();
  /** The endpoint list {@link #nodes} was built from; compared by identity on the hot path. */
  private volatile List<Endpoint> builtFrom;
  private volatile Map<ConnectionKey, Node> byKey = Map.of();
  /** Completes when some node becomes alive; replaced once it has. Guarded by lock. */
  private CompletableFuture<Void> nodeAlive = new CompletableFuture<>();

  NodeGroup(ClientRuntime runtime, ProxySettings settings, NodeSelector strategy) {
    this.runtime = runtime;
    this.strategy = strategy;
    this.supervision = runtime.config().nodeReconnect();
    this.connectionId = settings.connectionId();
  }

  @Override
  public CompletableFuture<RequestChannel> route(ProxySettings settings, Set<ConnectionKey> exclude, long deadlineNanos) {
    List<Node> all;
    try {
      all = nodes(settings);
    } catch (TetherException e) {
      return CompletableFuture.failedFuture(e);
    }
    List<Node> live = new ArrayList<>(all.size());
    for (Node n : all) {
      if (n.isSelectable() && !exclude.contains(n.key)) {
        adoptSharedConnection(n, settings);
        live.add(n);
      }
    }
    if (live.isEmpty()) {
      return noLiveNode(settings, all, exclude, deadlineNanos);
    }
    Node chosen = live.get(strategy.pick(live, runtime.ticker().nanoTime()));
    return connect(chosen, settings).handle((c, failure) -> {
      if (failure == null) {
        return CompletableFuture.completedFuture(c);
      }
      Set<ConnectionKey> more = new java.util.HashSet<>(exclude);
      more.add(chosen.key);
      return route(settings, more, deadlineNanos);
    }).thenCompose(f -> f);
  }

  private CompletableFuture<RequestChannel> noLiveNode(
      ProxySettings settings, List<Node> all, Set<ConnectionKey> exclude, long deadlineNanos) {
    boolean allIncompatible = !all.isEmpty() && all.stream().allMatch(n -> n.health() == Node.Health.INCOMPATIBLE);
    if (allIncompatible) {
      return CompletableFuture.failedFuture(new IncompatibleServerException(
          "no node of " + settings.identity() + " runs a version in " + settings.serverVersion() + ": " + all));
    }
    if (!settings.waitForReady() || !exclude.isEmpty()) {
      return CompletableFuture.failedFuture(new NoAvailableNodeException(
          "no live node for " + settings.identity() + ": " + all));
    }
    CompletableFuture<Void> alive;
    synchronized (lock) {
      alive = nodeAlive;
    }
    CompletableFuture<Void> bounded = alive;
    if (deadlineNanos != 0) {
      long waitNanos = deadlineNanos - runtime.ticker().nanoTime();
      if (waitNanos <= 0) {
        return CompletableFuture.failedFuture(new NoAvailableNodeException(
            "no live node for " + settings.identity() + " before the deadline: " + all));
      }
      bounded = alive.copy().orTimeout(waitNanos, TimeUnit.NANOSECONDS);
    }
    return bounded.handle((v, failure) -> failure == null
        ? route(settings, exclude, deadlineNanos)
        : CompletableFuture.<RequestChannel>failedFuture(new NoAvailableNodeException(
            "no node of " + settings.identity() + " came back before the deadline: " + nodes)))
        .thenCompose(f -> f);
  }

  /** The current nodes, rebuilt (keeping known ones) when the proxy's endpoints changed. */
  private List<Node> nodes(ProxySettings settings) {
    List<Endpoint> endpoints = settings.endpoints();
    if (endpoints == builtFrom) {
      return nodes;
    }
    synchronized (lock) {
      if (endpoints != builtFrom) {
        List<Candidate> candidates = runtime.select(settings.withSelection(EndpointSelection.ORDERED));
        Map<ConnectionKey, Node> next = new HashMap<>();
        List<Node> ordered = new ArrayList<>();
        for (Candidate c : candidates) {
          ConnectionKey key = c.key(connectionId);
          Node n = byKey.containsKey(key) ? byKey.get(key) : new Node(c, connectionId);
          if (next.putIfAbsent(key, n) == null) {
            ordered.add(n);
          }
        }
        for (Node gone : byKey.values()) {
          if (!next.containsKey(gone.key) && gone.reconnect != null) {
            gone.reconnect.cancel();
          }
        }
        byKey = next;
        nodes = List.copyOf(ordered);
        builtFrom = endpoints;
      }
      return nodes;
    }
  }

  /**
   * A node this group has not connected yet may already have a connection opened by other
   * proxies; watching it tells how busy the node is before the first call is sent there.
   */
  private void adoptSharedConnection(Node n, ProxySettings settings) {
    if (n.watched() == null) {
      RequestChannel shared = runtime.pool().existing(n.key);
      if (shared != null && shared.state() == dev.tether.ConnectionState.ACTIVE
          && ClientRuntime.isCompatible(settings, shared)) {
        nodeConnected(n, shared);
      }
    }
  }

  /** The node's connection, opening it if needed; a failure marks the node dead. */
  private CompletableFuture<RequestChannel> connect(Node node, ProxySettings settings) {
    return runtime.obtain(node.candidate, connectionId).whenComplete((c, failure) -> {
      if (failure != null) {
        nodeFailed(node, failure.getMessage());
        hintSource(settings, node);
      } else if (!ClientRuntime.isCompatible(settings, c)) {
        node.markIncompatible();
      } else {
        nodeConnected(node, c);
      }
    }).thenCompose(c -> node.health() == Node.Health.INCOMPATIBLE
        ? CompletableFuture.failedFuture(new IncompatibleServerException(node + " is outside " + settings.serverVersion()))
        : CompletableFuture.completedFuture(c));
  }

  private static void hintSource(ProxySettings settings, Node node) {
    if (settings.source() != null) {
      settings.source().onConnectFailure(node.endpoint());
    }
  }

  private void nodeConnected(Node node, RequestChannel c) {
    if (node.watch(c)) {
      c.closeFuture().addListener(closed -> {
        if (node.watched() == c && !runtime.isClosing()) {
          nodeFailed(node, "connection closed");
        }
      });
    }
    if (node.markAlive()) {
      log.debug("node {} is alive", node.endpoint());
      runtime.events().emit(dev.tether.observe.TetherEvent.Kind.NODE_ALIVE, node.endpoint().toString(), "connected", null);
      synchronized (lock) {
        nodeAlive.complete(null);
        nodeAlive = new CompletableFuture<>();
      }
    }
  }

  /** Marks the node dead and starts its supervisor streak. */
  private void nodeFailed(Node node, String why) {
    if (runtime.isClosing() || !node.markDead(runtime.ticker().nanoTime())) {
      return;
    }
    log.debug("node {} is dead: {}", node.endpoint(), why);
    runtime.events().emit(dev.tether.observe.TetherEvent.Kind.NODE_DEAD, node.endpoint().toString(), why, null);
    node.delays = supervision.newStreak(runtime.random());
    scheduleReconnect(node);
  }

  private void scheduleReconnect(Node node) {
    Backoff.Streak delays = node.delays;
    if (delays == null || runtime.isClosing()) {
      return;
    }
    long delay = delays.nextDelayNanos();
    node.reconnect = runtime.schedule(() -> supervise(node), Duration.ofNanos(delay));
  }

  /** One supervisor attempt: reconnect the dead node, or wait for the next delay. */
  private void supervise(Node node) {
    if (node.health() != Node.Health.DEAD || runtime.isClosing()) {
      return;
    }
    runtime.obtain(node.candidate, connectionId).whenComplete((c, failure) -> {
      if (failure == null) {
        nodeConnected(node, c);
      } else {
        scheduleReconnect(node);
      }
    });
  }

  @Override
  public CompletableFuture<Void> connectAny(ProxySettings settings) {
    List<Node> all;
    try {
      all = nodes(settings);
    } catch (TetherException e) {
      return CompletableFuture.failedFuture(e);
    }
    CompletableFuture<Void> first = new CompletableFuture<>();
    AtomicInteger failures = new AtomicInteger();
    for (Node n : all) {
      connect(n, settings).whenComplete((c, failure) -> {
        if (failure == null) {
          first.complete(null);
        } else if (failures.incrementAndGet() == all.size()) {
          first.completeExceptionally(new NoAvailableNodeException("no node of " + settings.identity()
              + " accepted a connection: " + all));
        }
      });
    }
    return first;
  }

  @Override
  public void onCallStarted(RequestChannel c) {
    Node n = byKey.get(c.key());
    if (n != null) {
      n.callStarted();
    }
  }

  @Override
  public void onCallFinished(RequestChannel c, long latencyNanos) {
    Node n = byKey.get(c.key());
    if (n != null) {
      n.callFinished(latencyNanos);
      strategy.onCallFinished(n, latencyNanos, runtime.ticker().nanoTime());
    }
  }

  @Override
  public List<dev.tether.observe.NodeStatus> nodeStatus() {
    List<dev.tether.observe.NodeStatus> out = new ArrayList<>();
    for (Node n : nodes) {
      out.add(new dev.tether.observe.NodeStatus(n.endpoint().toString(), n.health().name(), n.inFlight(),
          n.latencyEwmaNanos() / 1_000.0));
    }
    return out;
  }

  /** A snapshot of the nodes and their health, for status and tests. */
  List<Node> snapshot() {
    return nodes;
  }
}
