package dev.tether.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.Endpoint;
import dev.tether.Idempotency;
import dev.tether.LoadBalancing;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.observe.TetherEvent;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.test.KillSession;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Discovery on a real ZooKeeper: proxies follow registrations, and outlive the registry's outages.
 */
class ZooKeeperDiscoveryTest {
  private static final Duration SESSION = Duration.ofSeconds(2);

  /**
   * Only a bound on waits for ZooKeeper (a first view, a registration): generous for a loaded
   * machine.
   */
  private static final Duration PATIENCE = Duration.ofSeconds(10);

  private final TestingServer zookeeper = LoopbackZooKeeper.server();
  private final List<TetherEvent> registryEvents = new CopyOnWriteArrayList<>();
  private final ZooKeeperRegistry servers = registry();
  private final ZooKeeperRegistry clients =
      ZooKeeperRegistry.builder(zookeeper.getConnectString())
          .sessionTimeout(SESSION)
          .connectionTimeout(PATIENCE)
          .listener(registryEvents::add)
          .build();
  private final KvServers kv = new KvServers();
  private final Tether tether = Tether.create();

  private ZooKeeperRegistry registry() {
    return ZooKeeperRegistry.builder(zookeeper.getConnectString())
        .sessionTimeout(SESSION)
        .connectionTimeout(PATIENCE)
        .build();
  }

  @AfterEach
  void stop() throws Exception {
    tether.close();
    kv.close();
    clients.close();
    servers.close();
    zookeeper.close();
  }

  /**
   * A balanced proxy whose calls may take the patience: a fresh JVM's first calls load and compile
   * the whole call path, which took over five seconds on a loaded two-core machine.
   */
  private Proxy balanced(ZooKeeperDiscovery discovery) {
    return tether
        .proxy(KvServers.SERVICE, discovery)
        .withLoadBalancing(LoadBalancing.ROUND_ROBIN)
        .withInvocationTimeout(PATIENCE);
  }

  private static Endpoint endpointOf(TetherServer server) {
    return server.endpoints().get(0);
  }

  /** Calls (bounded) until the named server has answered one. */
  private void callUntilServedBy(Proxy proxy, String name) {
    AtomicInteger calls = new AtomicInteger();
    await()
        .atMost(PATIENCE.multipliedBy(2))
        .until(
            () -> {
              proxy.invoke("whoami", new byte[0], Idempotency.IDEMPOTENT);
              return kv.served(name) > 0 || calls.incrementAndGet() > 10_000;
            });
    assertThat(kv.served(name)).isPositive();
  }

  @Test
  void aProxyOnDiscoverySendsTrafficToANewlyRegisteredServerWithoutBeingRecreated() {
    servers.register(kv.start("a"));
    ZooKeeperDiscovery discovery = clients.discovery(KvServers.SERVICE);
    Proxy proxy = balanced(discovery);
    assertThat(proxy.invoke("whoami", new byte[0])).asString().isEqualTo("a");
    servers.register(kv.start("b"));
    callUntilServedBy(proxy, "b");
  }

  @Test
  void subscribersHearOfANewServerAndOfAWithdrawnOne() {
    TetherServer a = kv.start("a");
    servers.register(a);
    ZooKeeperDiscovery discovery = clients.discovery(KvServers.SERVICE);
    List<List<Endpoint>> heard = new CopyOnWriteArrayList<>();
    discovery.subscribe(() -> heard.add(discovery.endpoints()));
    TetherServer b = kv.start("b");
    Registration rb = servers.register(b);
    await().atMost(Duration.ofSeconds(5)).until(() -> heard.contains(sortedList(a, b)));
    rb.withdraw();
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> heard.get(heard.size() - 1).equals(List.of(endpointOf(a))));
    assertThat(discovery.endpoints()).isSameAs(heard.get(heard.size() - 1));
  }

  /** The discovery's order: by server id. */
  private static List<Endpoint> sortedList(TetherServer x, TetherServer y) {
    return x.serverId().compareTo(y.serverId()) < 0
        ? List.of(endpointOf(x), endpointOf(y))
        : List.of(endpointOf(y), endpointOf(x));
  }

  @Test
  void keepsOnlyServersInTheVersionRange() {
    servers.register(kv.start("old", "1.9.0"));
    TetherServer current = kv.start("current", "2.3.0");
    servers.register(current);
    servers.register(kv.start("next", "3.0.0"));
    ZooKeeperDiscovery discovery = clients.discovery(KvServers.SERVICE, "[2.0,3.0)");
    assertThat(discovery.servers()).hasSize(3);
    assertThat(discovery.endpoints()).containsExactly(endpointOf(current));
  }

  @Test
  void aWithdrawnServerGetsNoNewCallsWhileItDrains() throws Exception {
    TetherServer a = kv.start("a");
    servers.register(a);
    servers.register(kv.start("b"));
    ZooKeeperDiscovery discovery = clients.discovery(KvServers.SERVICE);
    Proxy toA = tether.proxy(a.proxyString(KvServers.SERVICE));
    CompletableFuture<byte[]> held = toA.invokeAsync("hold", new byte[0]);
    kv.holding.await();
    CompletableFuture<Void> drain =
        CompletableFuture.runAsync(() -> a.shutdownGracefully(Duration.ofSeconds(20)));
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> !discovery.endpoints().contains(endpointOf(a)));
    int servedByA = kv.served("a");
    Proxy proxy = balanced(discovery);
    for (int i = 0; i < 50; i++) {
      assertThat(proxy.invoke("increment", ("call-" + i).getBytes(), Idempotency.NOT_IDEMPOTENT))
          .asString()
          .isEqualTo("b");
    }
    assertThat(drain).isNotDone();
    assertThat(kv.served("a")).isEqualTo(servedByA);
    kv.release();
    assertThat(held.get()).asString().isEqualTo("a");
    drain.get();
  }

  @Test
  void aRollingRestartOfThreeServersUnderEightCallersFailsNoCallAndRunsNoIncrementTwice()
      throws Exception {
    List<TetherServer> running = new CopyOnWriteArrayList<>();
    for (String name : List.of("a1", "b1", "c1")) {
      TetherServer s = kv.start(name);
      servers.register(s);
      running.add(s);
    }
    ZooKeeperDiscovery discovery = clients.discovery(KvServers.SERVICE);
    assertThat(discovery.endpoints()).hasSize(3);
    Proxy proxy = balanced(discovery);
    CallLoad load =
        new CallLoad(
            proxy, 8, "increment", Idempotency.NOT_IDEMPOTENT, 5_000, Duration.ofSeconds(30));
    try (load) {
      for (String name : List.of("a", "b", "c")) {
        TetherServer old = running.remove(0);
        old.shutdownGracefully(Duration.ofSeconds(10));
        TetherServer replacement = kv.start(name + "2");
        servers.register(replacement);
        running.add(replacement);
        await().atMost(Duration.ofSeconds(10)).until(() -> kv.served(name + "2") > 0);
      }
    }
    assertThat(load.failures()).isEmpty();
    assertThat(load.succeeded()).isPositive();
    assertThat(kv.executions()).hasSize(load.succeeded());
    assertThat(kv.executions().values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
  }

  @Test
  void
      callsKeepFlowingToKnownServersWhileZooKeeperIsStoppedAndAServerRegisteredAfterItReturnsGetsTraffic()
          throws Exception {
    servers.register(kv.start("a"));
    servers.register(kv.start("b"));
    ZooKeeperDiscovery discovery = clients.discovery(KvServers.SERVICE);
    Proxy proxy = balanced(discovery);
    List<Endpoint> known = discovery.endpoints();
    assertThat(known).hasSize(2);
    // Both servers answer before the outage: the calls during it then see only what it changes,
    // not the first connections' cost.
    callUntilServedBy(proxy, "a");
    callUntilServedBy(proxy, "b");
    zookeeper.stop();
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                registryEvents.stream()
                    .anyMatch(e -> e.kind() == TetherEvent.Kind.CONNECTION_CLOSED));
    // Twice the session timeout without ZooKeeper, so every session expires, calls flowing all
    // along.
    int servedByA = kv.served("a");
    int servedByB = kv.served("b");
    CallLoad load =
        new CallLoad(
            proxy, 2, "whoami", Idempotency.NOT_IDEMPOTENT, 100_000, SESSION.multipliedBy(2));
    // The load's time, then its last calls' invocation timeout.
    await().atMost(SESSION.multipliedBy(2).plus(PATIENCE.multipliedBy(2))).until(load::finished);
    load.close();
    assertThat(load.failures()).isEmpty();
    assertThat(kv.served("a")).isGreaterThan(servedByA);
    assertThat(kv.served("b")).isGreaterThan(servedByB);
    assertThat(discovery.endpoints()).isSameAs(known);
    zookeeper.restart();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                registryEvents.get(registryEvents.size() - 1).kind() == TetherEvent.Kind.CONNECTED);
    servers.register(kv.start("c"));
    callUntilServedBy(proxy, "c");
    await().atMost(Duration.ofSeconds(10)).until(() -> discovery.endpoints().size() == 3);
  }

  @Test
  void aDiscoveryWhoseSessionExpiredKeepsItsListAndFollowsLaterRegistrations() throws Exception {
    servers.register(kv.start("a"));
    ZooKeeperDiscovery discovery = clients.discovery(KvServers.SERVICE);
    List<Endpoint> known = discovery.endpoints();
    assertThat(known).hasSize(1);
    List<List<Endpoint>> heard = new CopyOnWriteArrayList<>();
    discovery.subscribe(() -> heard.add(discovery.endpoints()));
    KillSession.kill(clients.curator().getZookeeperClient().getZooKeeper());
    TetherServer b = kv.start("b");
    servers.register(b);
    await().atMost(PATIENCE).until(() -> discovery.endpoints().contains(endpointOf(b)));
    assertThat(discovery.endpoints()).containsAll(known);
    assertThat(heard).allSatisfy(view -> assertThat(view).isNotEmpty());
  }
}
