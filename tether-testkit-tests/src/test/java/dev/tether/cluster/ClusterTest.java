package dev.tether.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tether.IncompatibleServerException;
import dev.tether.LoadBalancing;
import dev.tether.NoAvailableNodeException;
import dev.tether.Proxy;
import dev.tether.SessionLostException;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.Topology;
import dev.tether.spi.StaticDiscovery;
import dev.tether.testkit.FakeClock;
import dev.tether.testkit.FaultProxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Clusters of real servers on loopback: strategies, node health, discovery, reroute, sessions. */
class ClusterTest {
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final Map<String, AtomicInteger> served = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> stuck = new ConcurrentHashMap<>();
  private final CountDownLatch release = new CountDownLatch(1);
  private final List<TetherServer> nodes = new ArrayList<>();
  private final List<Integer> ports = new ArrayList<>();
  private final java.util.concurrent.ExecutorService servicePool =
      java.util.concurrent.Executors.newCachedThreadPool();

  @AfterEach
  void stop() throws Exception {
    release.countDown();
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
    for (TetherServer s : nodes) {
      s.close();
    }
    servicePool.shutdownNow();
  }

  private int served(String node) {
    return served.computeIfAbsent(node, k -> new AtomicInteger()).get();
  }

  private TetherServer.Builder builder(String name, int port) {
    return TetherServer.builder()
        .endpoints("tcp -h 127.0.0.1 -p " + port)
        // Blocking service code: a pool that grows with the calls, so 50 stuck calls all run.
        .executor(servicePool)
        .service(
            "svc",
            (op, payload, ctx) -> {
              served.computeIfAbsent(name, k -> new AtomicInteger()).incrementAndGet();
              if (op.equals("stuck") && name.equals("n0")) {
                stuck.computeIfAbsent(name, k -> new AtomicInteger()).incrementAndGet();
                release.await(30, TimeUnit.SECONDS);
              }
              return name.getBytes(StandardCharsets.UTF_8);
            });
  }

  /** Starts nodes n0..n(count-1); returns their endpoints as a proxy string for "svc". */
  private String startNodes(int count) {
    StringBuilder proxy = new StringBuilder("svc");
    for (int i = 0; i < count; i++) {
      TetherServer s = builder("n" + i, 0).build().start();
      nodes.add(s);
      ports.add(s.endpoints().get(0).port());
      proxy.append(':').append(s.endpoints().get(0));
    }
    return proxy.toString();
  }

  private void restart(int i) {
    nodes.get(i).close();
    nodes.set(i, builder("n" + i, ports.get(i)).build().start());
  }

  /**
   * Stops {@code server} and waits until the client has seen its connection close: a non-idempotent
   * call written before that, on a connection that still looks usable, may have run and must fail,
   * which is the at-most-once rule, not the reroute these tests are about.
   */
  private static void closeAndAwaitTheClientSeeingIt(Tether t, Proxy p, TetherServer server) {
    dev.tether.Connection before = p.connection();
    server.close();
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> t.connection(before).state() == dev.tether.ConnectionState.CLOSED);
  }

  private Tether tether(String... properties) {
    Tether.Builder b = Tether.builder().random(new java.util.Random(3));
    for (int i = 0; i < properties.length; i += 2) {
      b.property(properties[i], properties[i + 1]);
    }
    Tether t = b.build();
    closeables.add(t);
    return t;
  }

  /**
   * The group dials every node at once and calls go to whichever is ready first: a test of how
   * calls spread starts counting once every node is, after one call made the group.
   */
  private void awaitEveryNodeAlive(Tether t, Proxy p, int nodes) {
    call(p);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                t.status().nodes().stream().filter(n -> n.health().equals("ALIVE")).count()
                    == nodes);
    served.clear(); // the first call is not part of the spread
  }

  private static String call(Proxy p) {
    return new String(p.invoke("hello", new byte[0]), StandardCharsets.UTF_8);
  }

  @Test
  void roundRobinSpreads300CallsEvenly() {
    Tether t = tether();
    Proxy p = t.proxy(startNodes(3)).withLoadBalancing(LoadBalancing.ROUND_ROBIN);
    awaitEveryNodeAlive(t, p, 3);
    for (int i = 0; i < 300; i++) {
      call(p);
    }
    for (int i = 0; i < 3; i++) {
      assertThat(served("n" + i)).isBetween(90, 110);
    }
  }

  @Test
  void randomReachesEveryNode() {
    Tether t = tether();
    Proxy p = t.proxy(startNodes(3)).withLoadBalancing(LoadBalancing.RANDOM);
    awaitEveryNodeAlive(t, p, 3);
    for (int i = 0; i < 300; i++) {
      call(p);
    }
    for (int i = 0; i < 3; i++) {
      assertThat(served("n" + i)).isBetween(60, 140);
    }
  }

  @Test
  void leastLoadedAvoidsANodeHolding50StuckCalls() {
    Tether t = tether();
    Proxy p = t.proxy(startNodes(3)).withLoadBalancing(LoadBalancing.LEAST_LOADED);
    call(p);
    // 50 calls stuck on n0's connection, sent by another proxy sharing it.
    Proxy toN0 = t.proxy("svc:" + nodes.get(0).endpoints().get(0));
    for (int i = 0; i < 50; i++) {
      toN0.invokeAsync("stuck", new byte[0]);
    }
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> stuck.computeIfAbsent("n0", k -> new AtomicInteger()).get() == 50);
    int before = served("n0");
    for (int i = 0; i < 300; i++) {
      call(p);
    }
    assertThat(served("n0") - before).isZero();
    assertThat(served("n1") + served("n2")).isGreaterThanOrEqualTo(300);
  }

  @Test
  void epsilonGreedySendsMoreCallsToTheFastNodeAndStillSomeToTheSlowOne() throws Exception {
    startNodes(2);
    FaultProxy slow = FaultProxy.start("127.0.0.1", ports.get(1));
    closeables.add(slow);
    slow.latency(Duration.ofMillis(20));
    Tether t = tether();
    Proxy p =
        t.proxy("svc:" + nodes.get(0).endpoints().get(0) + ":" + slow.endpoint())
            .withLoadBalancing(LoadBalancing.EPSILON_GREEDY);
    awaitEveryNodeAlive(t, p, 2);
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    for (int i = 0; i < 600 && System.nanoTime() < deadline; i++) {
      call(p);
    }
    int fast = served("n0");
    int slowCalls = served("n1");
    assertThat(fast).isGreaterThan(2 * slowCalls);
    assertThat(slowCalls).isGreaterThan(0);
  }

  @Test
  void killedNodeIsSkippedThenReconnectedBySupervisorAndUsedAgain() {
    FakeClock clock = new FakeClock();
    // RethinkDB's preset, whose long delays show the supervisor following them.
    Tether t =
        Tether.builder()
            .ticker(clock)
            .scheduler(clock)
            .property("tether.cluster.reconnect.policy", "exponential")
            .build();
    closeables.add(t);
    Proxy p = t.proxy(startNodes(3)).withLoadBalancing(LoadBalancing.ROUND_ROBIN);
    for (int i = 0; i < 30; i++) {
      call(p);
    }
    nodes.get(1).close();
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> clock.pendingDelays().contains(Duration.ofSeconds(30)));
    int before = served("n1");
    for (int i = 0; i < 30; i++) {
      assertThat(call(p)).isNotEqualTo("n1");
    }
    assertThat(served("n1")).isEqualTo(before);
    // The supervisor follows the node backoff: 30 s, then 60 s while the node stays down.
    clock.forward(Duration.ofSeconds(30));
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> clock.pendingDelays().contains(Duration.ofSeconds(60)));
    restart(1);
    clock.forward(Duration.ofSeconds(60));
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () -> {
              call(p);
              return served("n1") > before;
            });
  }

  @Test
  void allNodesDownFailsAtOnceWithNoAvailableNode() {
    Proxy p = tether().proxy(startNodes(2)).withLoadBalancing(LoadBalancing.ROUND_ROBIN);
    call(p);
    call(p);
    nodes.get(0).close();
    nodes.get(1).close();
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () -> assertThatThrownBy(() -> call(p)).isInstanceOf(NoAvailableNodeException.class));
  }

  @Test
  void waitForReadySucceedsOnceANodeComesBack() throws Exception {
    Tether t =
        tether("tether.cluster.reconnect.initial", "50ms", "tether.cluster.reconnect.max", "100ms");
    Proxy p =
        t.proxy(startNodes(1))
            .withLoadBalancing(LoadBalancing.ROUND_ROBIN)
            .withWaitForReady(true)
            .withInvocationTimeout(Duration.ofSeconds(20));
    call(p);
    nodes.get(0).close();
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () ->
                assertThatThrownBy(() -> call(p.withWaitForReady(false)))
                    .isInstanceOf(NoAvailableNodeException.class));
    CompletableFuture<byte[]> waiting = p.invokeAsync("hello", new byte[0]);
    assertThat(waiting).isNotDone();
    restart(0);
    assertThat(new String(waiting.get(10, TimeUnit.SECONDS), StandardCharsets.UTF_8))
        .isEqualTo("n0");
  }

  @Test
  void connectAsyncCompletesOnceOneNodeIsConnected() throws Exception {
    String proxy = startNodes(2);
    nodes.get(1).close();
    Proxy p = tether().proxy(proxy).withLoadBalancing(LoadBalancing.ROUND_ROBIN);
    p.connectAsync().get(10, TimeUnit.SECONDS);
    assertThat(call(p)).isEqualTo("n0");
  }

  @Test
  void fourthNodeAddedToDiscoveryGetsTrafficWithoutRecreatingTheProxy() {
    startNodes(4);
    StaticDiscovery discovery =
        StaticDiscovery.of(
            nodes.get(0).endpoints().get(0).toString(),
            nodes.get(1).endpoints().get(0).toString(),
            nodes.get(2).endpoints().get(0).toString());
    Tether t = tether();
    Proxy p = t.proxy("svc", discovery).withLoadBalancing(LoadBalancing.ROUND_ROBIN);
    for (int i = 0; i < 30; i++) {
      call(p);
    }
    assertThat(served("n3")).isZero();
    String fourth = nodes.get(3).endpoints().get(0).toString();
    discovery.add(fourth);
    // A node takes calls once its connection is ready: the group dials it at once.
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                t.status().nodes().stream()
                    .anyMatch(n -> n.endpoint().equals(fourth) && n.health().equals("ALIVE")));
    for (int i = 0; i < 40; i++) {
      call(p);
    }
    assertThat(served("n3")).isBetween(8, 12);
  }

  @Test
  void nodeAddedToDiscoveryIsConnectedBeforeAnyCallNeedsIt() {
    startNodes(2);
    FaultProxy second = FaultProxy.start("127.0.0.1", ports.get(1));
    closeables.add(second);
    StaticDiscovery discovery = StaticDiscovery.of(nodes.get(0).endpoints().get(0).toString());
    Proxy p = tether().proxy("svc", discovery).withLoadBalancing(LoadBalancing.ROUND_ROBIN);
    call(p);
    assertThat(second.acceptedConnections()).isZero();

    discovery.add(second.endpoint());

    await().atMost(Duration.ofSeconds(5)).until(() -> second.acceptedConnections() == 1);
    assertThat(served("n1")).isZero();
  }

  @Test
  void nodeRemovedFromDiscoveryHasItsConnectionDrainedAndGetsNoMoreCalls() {
    startNodes(2);
    StaticDiscovery discovery =
        StaticDiscovery.of(
            nodes.get(0).endpoints().get(0).toString(), nodes.get(1).endpoints().get(0).toString());
    Proxy p = tether().proxy("svc", discovery).withLoadBalancing(LoadBalancing.ROUND_ROBIN);
    for (int i = 0; i < 4; i++) {
      call(p);
    }
    // The group dials every node at once, and calls go to whichever is ready first: the second
    // node's connection may still be on its way (or not yet counted in by its server).
    await().atMost(Duration.ofSeconds(5)).until(() -> nodes.get(1).connectionCount() == 1);

    discovery.remove(nodes.get(1).endpoints().get(0).toString());

    await().atMost(Duration.ofSeconds(5)).until(() -> nodes.get(1).connectionCount() == 0);
    int before = served("n1");
    for (int i = 0; i < 10; i++) {
      assertThat(call(p)).isEqualTo("n0");
    }
    assertThat(served("n1")).isEqualTo(before);
  }

  @Test
  void waitForReadyFailsAtTheInvocationDeadlineOnTheInjectedClock() throws Exception {
    FakeClock clock = new FakeClock();
    Tether t = Tether.builder().ticker(clock).scheduler(clock).build();
    closeables.add(t);
    Proxy p =
        t.proxy(startNodes(1))
            .withLoadBalancing(LoadBalancing.ROUND_ROBIN)
            .withWaitForReady(true)
            .withInvocationTimeout(Duration.ofSeconds(5));
    call(p);
    nodes.get(0).close();
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () ->
                assertThatThrownBy(() -> call(p.withWaitForReady(false)))
                    .isInstanceOf(NoAvailableNodeException.class));

    CompletableFuture<byte[]> waiting = p.invokeAsync("hello", new byte[0]);
    clock.forward(Duration.ofMillis(4_999));
    assertThat(waiting).isNotDone();
    clock.forward(Duration.ofMillis(1));
    assertThatThrownBy(() -> waiting.get(5, TimeUnit.SECONDS))
        .hasCauseInstanceOf(dev.tether.InvocationTimeoutException.class);
  }

  @Test
  void pinnedProxyOnDiscoveryFollowsRemovedNodes() {
    startNodes(2);
    StaticDiscovery discovery = StaticDiscovery.of(nodes.get(0).endpoints().get(0).toString());
    Proxy p = tether().proxy("svc", discovery).withConnectionCached(false);
    assertThat(call(p)).isEqualTo("n0");
    discovery.set(List.of(nodes.get(1).endpoints().get(0)));
    assertThat(call(p)).isEqualTo("n1");
  }

  @Test
  void incompatibleServerVersionIsSkipped() {
    TetherServer old =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .version("1.9.3")
            .service("svc", (op, payload, ctx) -> "old".getBytes(StandardCharsets.UTF_8))
            .build()
            .start();
    TetherServer current =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .version("2.4.0")
            .service("svc", (op, payload, ctx) -> "current".getBytes(StandardCharsets.UTF_8))
            .build()
            .start();
    nodes.add(old);
    nodes.add(current);
    String proxy = "svc:" + old.endpoints().get(0) + ":" + current.endpoints().get(0);
    Tether t = tether();
    Proxy pinned =
        t.proxy(proxy)
            .withServerVersion("[2.0,3.0)")
            .withEndpointSelection(dev.tether.EndpointSelection.ORDERED);
    assertThat(call(pinned)).isEqualTo("current");
    Proxy balanced =
        t.proxy(proxy).withServerVersion("[2.0,3.0)").withLoadBalancing(LoadBalancing.ROUND_ROBIN);
    for (int i = 0; i < 10; i++) {
      assertThat(call(balanced)).isEqualTo("current");
    }
    Proxy impossible = t.proxy(proxy).withServerVersion("[3.0,)");
    assertThatThrownBy(() -> call(impossible)).isInstanceOf(IncompatibleServerException.class);
  }

  @Test
  void primaryFailureReroutesToTheFirstAlternateThenFollowsTheRefreshedView() {
    startNodes(3);
    String e0 = nodes.get(0).endpoints().get(0).toString();
    String e1 = nodes.get(1).endpoints().get(0).toString();
    String e2 = nodes.get(2).endpoints().get(0).toString();
    Topology view = Topology.of(e0, List.of(e1, e2));
    for (TetherServer s : nodes) {
      s.setTopology(view);
    }
    // The client knows only the primary; the rest comes from the server.
    Tether t = tether();
    Proxy p = t.proxy("svc:" + e0);
    assertThat(call(p)).isEqualTo("n0");
    assertThat(p.alternateWasUsed()).isFalse();
    // n1 takes over and announces a new view where n2 is its alternate.
    nodes.get(1).setTopology(Topology.of(e1, List.of(e2)));
    closeAndAwaitTheClientSeeingIt(t, p, nodes.get(0));
    assertThat(call(p)).isEqualTo("n1");
    assertThat(p.alternateWasUsed()).isTrue();
    // Later failures follow the refreshed view: n1 then n2, never the dead n0.
    closeAndAwaitTheClientSeeingIt(t, p, nodes.get(1));
    assertThat(call(p)).isEqualTo("n2");
  }

  @Test
  void sessionInterruptedByARerouteRaisesSessionLostWhileSessionlessCallsContinue() {
    startNodes(2);
    String e0 = nodes.get(0).endpoints().get(0).toString();
    String e1 = nodes.get(1).endpoints().get(0).toString();
    for (TetherServer s : nodes) {
      s.setTopology(Topology.of(e0, List.of(e1)));
    }
    Tether t = tether();
    Proxy plain = t.proxy("svc:" + e0);
    Proxy session = plain.withSession("basket-42");
    assertThat(call(session)).isEqualTo("n0");
    assertThat(call(plain)).isEqualTo("n0");
    closeAndAwaitTheClientSeeingIt(t, plain, nodes.get(0));
    assertThat(call(plain)).isEqualTo("n1");
    assertThatThrownBy(() -> call(session))
        .isInstanceOf(SessionLostException.class)
        .hasMessageContaining("basket-42")
        .hasMessageContaining("-p " + ports.get(1));
    assertThat(call(session)).isEqualTo("n1");
  }
}
