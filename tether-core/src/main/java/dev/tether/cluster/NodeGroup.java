package dev.tether.cluster;

import dev.tether.Endpoint;
import dev.tether.EndpointSelection;
import dev.tether.IncompatibleServerException;
import dev.tether.NoAvailableNodeException;
import dev.tether.client.AnswerBlame;
import dev.tether.client.Candidate;
import dev.tether.client.ConnectionKey;
import dev.tether.client.ConnectionSupervisor;
import dev.tether.client.NodeHost;
import dev.tether.client.NodeRouter;
import dev.tether.client.ProxySettings;
import dev.tether.client.RequestChannel;
import dev.tether.observe.NodeStatus;
import dev.tether.spi.Discovery;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The nodes behind one group of load-balanced proxies, picked by the proxies' load-balancing
 * strategy among the nodes that can take a call now: in rotation and their connection READY, so a
 * node whose connection is connecting, handshaking, backing off or draining gets no call while
 * another is ready. Each node's health follows the supervisor of its connection: dead as soon as a
 * connection fails or breaks, alive again as soon as one is up; the group keeps every node
 * connected under the cluster's backoff. With no node ready a call waits for the first that becomes
 * ready within its deadline, or fails fast with NoAvailableNodeException when none may (unless it
 * waits for ready). A node whose calls keep failing is ejected for a while: the group's {@link
 * OutlierDetector} decides, and the node moves ({@link Node#moveTo}, which emits its events).
 *
 * <p>The group's state changes on the runtime's control executor; calls pick from an immutable
 * {@link GroupView} it publishes, so the hot path takes no lock and makes no hop, and status reads
 * the same snapshot, so it never waits for the control executor.
 */
final class NodeGroup implements NodeRouter, ConnectionSupervisor.Listener {
  private final NodeHost host;
  private final NodeSelector strategy;
  private final String connectionId;

  /** The settings the group was made for: its endpoints' source and version range. */
  private final ProxySettings template;

  private final OutlierDetector outliers;
  private final ServiceGaps gaps = new ServiceGaps();

  // Control executor only.
  private Map<ConnectionKey, Node> byKey = Map.of();
  private List<Node> ordered = List.of();
  private final ReadyWaiters waiters;
  private Discovery.Subscription subscription;

  /**
   * What callers pick from: rebuilt on the control executor after every change, read anywhere.
   * Volatile publishes each immutable snapshot whole.
   */
  private volatile GroupView picker = GroupView.EMPTY;

  NodeGroup(NodeHost host, ProxySettings settings, NodeSelector strategy) {
    this.host = host;
    this.strategy = strategy;
    this.connectionId = settings.connectionId();
    this.template = settings;
    this.outliers = new OutlierDetector(host);
    this.waiters = new ReadyWaiters(host, () -> ordered);
  }

  // ---- routing (any thread) ----

  @Override
  public CompletableFuture<RequestChannel> route(
      ProxySettings settings, Set<ConnectionKey> exclude, long deadlineNanos) {
    GroupView p = picker;
    List<Endpoint> endpoints = settings.endpoints();
    if (p.builtFrom() != endpoints && !endpoints.equals(p.builtFrom())) {
      return onControl(
          () -> {
            rebuild(settings.endpoints());
            return route(settings, exclude, deadlineNanos);
          });
    }
    long now = host.ticker().nanoTime();
    Node chosen =
        GroupView.pick(gaps.serving(p.ready(), settings.identity(), now), exclude, strategy, now);
    if (chosen == null) {
      return onControl(() -> noReadyNode(settings, exclude, deadlineNanos));
    }
    RequestChannel usable = GroupView.connectionOf(chosen);
    if (usable == null) {
      // It broke since the pick: its supervisor may be dialling again already, and a call must not
      // follow a handshake. Pick again from the view the control executor has by then.
      return onControl(() -> route(settings, exclude, deadlineNanos));
    }
    return usable
        .ready()
        .handle(
            (c, failure) -> {
              if (failure == null && host.isCompatible(settings, c)) {
                return CompletableFuture.completedFuture(c);
              }
              if (failure != null && settings.source() != null) {
                settings.source().onConnectFailure(chosen.endpoint());
              }
              // The connection broke between the pick and now (the supervisor tells the group), or
              // the node is incompatible: try another.
              return onControl(
                  () -> {
                    if (failure == null) {
                      markIncompatible(chosen);
                    }
                    Set<ConnectionKey> more = new HashSet<>(exclude);
                    more.add(chosen.key);
                    return route(settings, more, deadlineNanos);
                  });
            })
        .thenCompose(f -> f);
  }

  /** Runs {@code step} on the control executor and follows the future it returns. */
  private <T> CompletableFuture<T> onControl(Supplier<CompletableFuture<T>> step) {
    return ControlStep.run(host.control(), step);
  }

  /** What gives the group its endpoints, in words: its discovery, or the proxy's fixed list. */
  private static String listedBy(ProxySettings settings) {
    return settings.source() != null ? settings.source().toString() : "the proxy's endpoint list";
  }

  /**
   * No node took the call from the published view (control executor): one may have become ready
   * since; else the call waits for the first node that may still become ready (connecting,
   * handshaking, or dialling again after a loss), within its deadline; with none, it fails at once,
   * unless it waits for ready.
   */
  private CompletableFuture<RequestChannel> noReadyNode(
      ProxySettings settings, Set<ConnectionKey> exclude, long deadlineNanos) {
    List<Node> all = ordered;
    List<Node> ready = new ArrayList<>();
    boolean pending = false;
    for (Node n : all) {
      if (GroupView.isReady(n)) {
        ready.add(n);
      } else if (!exclude.contains(n.key) && GroupView.mayBecomeReady(n)) {
        pending = true;
        if (n.supervisor.state() != ConnectionSupervisor.State.CONNECTING) {
          n.supervisor.obtain(n.candidate); // idle or draining: dial its next connection now
        }
      }
    }
    if (GroupView.pick(ready, exclude, strategy, host.ticker().nanoTime()) != null) {
      return route(settings, exclude, deadlineNanos);
    }
    if (!all.isEmpty() && all.stream().allMatch(n -> n.health() == NodeHealth.INCOMPATIBLE)) {
      return CompletableFuture.failedFuture(
          new IncompatibleServerException(
              "no node of "
                  + settings.identity()
                  + " runs a version in "
                  + settings.serverVersion()
                  + ": "
                  + all));
    }
    // A retry never waits for a dead node: it goes elsewhere now or fails with its own cause.
    boolean patient = settings.waitForReady() && exclude.isEmpty();
    if (!pending && !patient) {
      return CompletableFuture.failedFuture(
          new NoAvailableNodeException(
              all.isEmpty()
                  ? "no endpoint for "
                      + settings.identity()
                      + ": "
                      + listedBy(settings)
                      + " lists none"
                  : "no live node for " + settings.identity() + ": " + all));
    }
    long waitNanos = deadlineNanos == 0 ? 0 : deadlineNanos - host.ticker().nanoTime();
    if (deadlineNanos != 0 && waitNanos <= 0) {
      return CompletableFuture.failedFuture(
          new NoAvailableNodeException(
              "no live node for " + settings.identity() + " before the deadline: " + all));
    }
    return waiters.add(settings, deadlineNanos, waitNanos, patient);
  }

  // ---- the group's state (control executor) ----

  /** Makes the node list match {@code endpoints}, keeping the nodes it already knows. */
  private void rebuild(List<Endpoint> endpoints) {
    host.control().assertInExecutor();
    if (endpoints.equals(picker.builtFrom())) {
      if (picker.builtFrom() != endpoints) {
        publish(endpoints);
      }
      return;
    }
    subscribeOnce();
    // An empty list is an answer (calls fail at once, or wait for a node): nothing to select.
    List<Candidate> candidates =
        endpoints.isEmpty()
            ? List.of()
            : host.select(
                template.with(
                    c -> c.endpoints(endpoints).source(null).selection(EndpointSelection.ORDERED)));
    Map<ConnectionKey, Node> next = new HashMap<>();
    List<Node> nextOrder = new ArrayList<>();
    List<Node> added = new ArrayList<>();
    for (Candidate c : candidates) {
      ConnectionKey key = c.key(connectionId);
      Node n = byKey.get(key);
      if (n == null) {
        n = new Node(host, c, host.supervisor(c, connectionId), this::onHealthChanged);
        outliers.add(n);
        added.add(n);
      }
      if (next.putIfAbsent(key, n) == null) {
        nextOrder.add(n);
      }
    }
    for (Node gone : byKey.values()) {
      if (!next.containsKey(gone.key)) {
        gone.supervisor.removeListener(this);
        outliers.remove(gone);
        drainRemoved(gone);
      }
    }
    byKey = next;
    ordered = List.copyOf(nextOrder);
    publish(endpoints);
    for (Node n : added) {
      // The supervisor tells the node's current state at once: a key other proxies opened counts.
      n.supervisor.keepConnected(host.nodeBackoff(), this);
    }
  }

  /**
   * A node its discovery no longer lists gets no new calls; its connection finishes the calls it
   * carries and closes (a proxy pinned to that server would open a new one on its next call).
   */
  private void drainRemoved(Node gone) {
    if (template.source() == null) {
      return; // a fixed list never removes a server; a rebuild only re-resolves it
    }
    RequestChannel c = gone.supervisor.usable();
    if (c != null) {
      c.drain();
    }
  }

  /** A discovery that announces changes gets new nodes connected before any call needs them. */
  private void subscribeOnce() {
    Discovery source = template.source();
    if (subscription != null || source == null) {
      return;
    }
    subscription =
        source.subscribe(
            () ->
                host.control()
                    .execute(
                        () -> {
                          rebuild(source.endpoints()); // new nodes dial at once
                        }));
  }

  private void publish(List<Endpoint> builtFrom) {
    host.control().assertInExecutor();
    List<Node> ready = new ArrayList<>(ordered.size());
    List<NodeHealth> health = new ArrayList<>(ordered.size());
    List<String> why = new ArrayList<>(ordered.size());
    Set<ConnectionKey> probing = new HashSet<>();
    for (Node n : ordered) {
      NodeHealth h = n.health();
      health.add(h);
      why.add(n.why());
      if (GroupView.isReady(n)) {
        ready.add(n);
      }
      if (h == NodeHealth.PROBING) {
        probing.add(n.key);
      }
    }
    picker =
        new GroupView(
            builtFrom,
            ordered,
            List.copyOf(health),
            List.copyOf(why),
            List.copyOf(ready),
            byKey,
            Set.copyOf(probing));
  }

  /**
   * A node's supervisor changed state: its health follows, the view is published again (a node
   * leaves the rotation as soon as its connection is not READY, and joins it when it is), and the
   * calls waiting for a node are settled.
   */
  @Override
  public void onStateChanged(
      ConnectionSupervisor supervisor, ConnectionSupervisor.State state, Throwable cause) {
    Node node = byKey.get(supervisor.key());
    if (node == null || host.isClosing()) {
      return;
    }
    // An ejection runs its course whatever the connection does: the detector ends it.
    if (node.health() != NodeHealth.EJECTED) {
      switch (state) {
        case READY -> onConnected(node, supervisor.usable());
        case TRANSIENT_FAILURE ->
            node.moveTo(
                NodeHealth.DEAD,
                cause == null ? "connection lost" : String.valueOf(cause.getMessage()),
                cause);
        // A group keeps its nodes connected (as gRPC's balancers do), so a ready node is there
        // before a call needs it: a new node dials at once.
        case IDLE -> supervisor.obtain(node.candidate);
        default -> {}
      }
    }
    publish(picker.builtFrom());
    settleWaiters();
  }

  /**
   * Calls waiting for a node go to one that is ready; with none ready and none that may become
   * ready, those that do not wait for ready fail now.
   */
  private void settleWaiters() {
    if (!picker.ready().isEmpty()) {
      waiters.wake(this);
    } else if (ordered.stream().noneMatch(GroupView::mayBecomeReady)) {
      waiters.failImpatient();
    }
  }

  /**
   * A node's connection is up: alive, or on probation when its ejection ended while it was down.
   */
  private void onConnected(Node node, RequestChannel c) {
    if (c != null && !host.isCompatible(template, c)) {
      markIncompatible(node);
    } else if (outliers.isOnProbation(node)) {
      node.moveTo(NodeHealth.PROBING, "connected after its ejection: its next call decides", null);
    } else {
      node.moveTo(NodeHealth.ALIVE, "connected", null);
    }
  }

  private void markIncompatible(Node node) {
    node.moveTo(
        NodeHealth.INCOMPATIBLE,
        "its server runs a version outside " + template.serverVersion(),
        null);
  }

  /**
   * A node moved (control executor): callers pick from its new health at once, and a node back in
   * rotation takes the calls waiting for one.
   */
  private void onHealthChanged(Node node) {
    publish(picker.builtFrom());
    settleWaiters();
  }

  @Override
  public CompletableFuture<Void> connectAny(ProxySettings settings) {
    return onControl(
        () -> {
          rebuild(settings.endpoints());
          return FirstConnection.of(host, ordered, settings);
        });
  }

  @Override
  public void onNotFound(ConnectionKey key, String service) {
    host.control().assertInExecutor();
    Node n = byKey.get(key);
    if (n != null) {
      gaps.record(n, service, host.ticker().nanoTime());
    }
  }

  // ---- load figures (any thread) ----

  @Override
  public void onCallStarted(RequestChannel c) {
    Node n = picker.byKey().get(c.key());
    if (n != null) {
      n.callStarted();
    }
  }

  @Override
  public void onCallFinished(RequestChannel c, long latencyNanos, AnswerBlame blame) {
    GroupView p = picker;
    Node n = p.byKey().get(c.key());
    if (n == null) {
      return;
    }
    n.callFinished(latencyNanos);
    long now = host.ticker().nanoTime();
    strategy.onCallFinished(n, latencyNanos, now);
    if (blame != AnswerBlame.PENDING) { // a stream's opening: its end counts, when it comes
      boolean probing = !p.probing().isEmpty() && p.probing().contains(n.key);
      outliers.onCallFinished(n, blame, probing, now);
    }
  }

  @Override
  public void onStreamEnded(RequestChannel c, AnswerBlame blame) {
    GroupView p = picker;
    Node n = p.byKey().get(c.key());
    if (n != null) {
      boolean probing = !p.probing().isEmpty() && p.probing().contains(n.key);
      outliers.onCallFinished(n, blame, probing, host.ticker().nanoTime());
    }
  }

  @Override
  public void onRuntimeClosed() {
    host.control().execute(waiters::failAll);
  }

  /**
   * The nodes as status shows them: the health last published, the load figures now. Any thread.
   */
  @Override
  public List<NodeStatus> nodeStatus() {
    GroupView p = picker;
    List<NodeStatus> out = new ArrayList<>(p.all().size());
    for (int i = 0; i < p.all().size(); i++) {
      Node n = p.all().get(i);
      out.add(
          new NodeStatus(
              n.endpoint().toString(),
              p.health().get(i).name(),
              n.inFlight(),
              n.latencyEwmaNanos() / 1_000.0,
              p.why().get(i)));
    }
    return out;
  }
}
