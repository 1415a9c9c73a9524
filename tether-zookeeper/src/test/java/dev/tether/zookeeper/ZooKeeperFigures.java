package dev.tether.zookeeper;

import dev.tether.Endpoint;
import dev.tether.TetherServer;
import dev.tether.testkit.FaultProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.curator.test.TestingServer;

/**
 * Measures, on a real ZooKeeper on 127.0.0.1, how long a client's discovery takes to hear of a
 * registered server (time-to-discover) and of a withdrawn one (time-to-forget), and how long a
 * cluster takes to elect a new primary after the old one crashed or shut down gracefully; prints
 * the median and range of {@code ROUNDS} rounds. Run by hand (see the README), not by the tests.
 */
public final class ZooKeeperFigures {
  private static final int ROUNDS = 10;
  private static final Duration SESSION = Duration.ofSeconds(2);

  private ZooKeeperFigures() {}

  public static void main(String[] args) throws Exception {
    try (TestingServer zookeeper = LoopbackZooKeeper.server();
        KvServers kv = new KvServers()) {
      discoverAndForget(zookeeper, kv);
      newPrimary(zookeeper, kv, true);
      newPrimary(zookeeper, kv, false);
    }
  }

  private static void discoverAndForget(TestingServer zookeeper, KvServers kv) throws Exception {
    List<Long> discover = new ArrayList<>();
    List<Long> forget = new ArrayList<>();
    try (ZooKeeperRegistry servers = registry(zookeeper.getConnectString());
        ZooKeeperRegistry clients = registry(zookeeper.getConnectString())) {
      ZooKeeperDiscovery discovery = clients.discovery(KvServers.SERVICE);
      // One server stays, so that forgetting the other is not held back by the never-empty rule.
      servers.register(kv.start("stays"));
      awaitView(discovery, () -> discovery.endpoints().size() == 1);
      for (int round = 0; round < ROUNDS; round++) {
        TetherServer server = kv.start("s" + round);
        Endpoint endpoint = server.endpoints().get(0);
        CompletableFuture<Long> heard =
            when(discovery, () -> discovery.endpoints().contains(endpoint));
        long start = System.nanoTime();
        servers.register(server);
        discover.add(heard.get(10, TimeUnit.SECONDS) - start);
        CompletableFuture<Long> gone =
            when(discovery, () -> !discovery.endpoints().contains(endpoint));
        start = System.nanoTime();
        CompletableFuture.runAsync(() -> server.shutdownGracefully(Duration.ofSeconds(5)));
        forget.add(gone.get(10, TimeUnit.SECONDS) - start);
      }
    }
    print("time-to-discover (register() called -> discovery notified)", discover);
    print("time-to-forget (shutdownGracefully() called -> discovery notified)", forget);
  }

  private static void newPrimary(TestingServer zookeeper, KvServers kv, boolean crash)
      throws Exception {
    List<Long> elected = new ArrayList<>();
    for (int round = 0; round < ROUNDS; round++) {
      List<FaultProxy> links = new ArrayList<>();
      List<ZooKeeperRegistry> registries = new ArrayList<>();
      List<ClusterMembership> members = new ArrayList<>();
      List<TetherServer> nodes = new ArrayList<>();
      try {
        for (int i = 0; i < 3; i++) {
          TetherServer server = kv.start("p" + round + "-" + i);
          FaultProxy link = FaultProxy.start("127.0.0.1", zookeeper.getPort());
          ZooKeeperRegistry registry = registry("127.0.0.1:" + link.port());
          links.add(link);
          registries.add(registry);
          nodes.add(server);
          members.add(registry.joinCluster(server, "figures-" + crash + "-" + round));
        }
        spinUntil(
            () -> members.stream().filter(ClusterMembership::isPrimary).count() == 1,
            Duration.ofSeconds(10));
        int leader = indexOfPrimary(members);
        long start = System.nanoTime();
        if (crash) {
          links.get(leader).freeze();
          nodes.get(leader).close();
        } else {
          CompletableFuture.runAsync(
              () -> nodes.get(leader).shutdownGracefully(Duration.ofSeconds(5)));
        }
        spinUntil(() -> anotherIsPrimary(members, leader), SESSION.multipliedBy(3));
        elected.add(System.nanoTime() - start);
      } finally {
        links.forEach(FaultProxy::close);
        registries.forEach(ZooKeeperRegistry::close);
        nodes.forEach(TetherServer::close);
      }
    }
    print(
        crash
            ? "time-to-new-primary after a crash (link frozen; session timeout "
                + SESSION.toMillis()
                + " ms)"
            : "time-to-new-primary after a graceful shutdown of the primary",
        elected);
  }

  private static ZooKeeperRegistry registry(String connectString) {
    return ZooKeeperRegistry.builder(connectString)
        .sessionTimeout(SESSION)
        .connectionTimeout(Duration.ofSeconds(1))
        .build();
  }

  private static int indexOfPrimary(List<ClusterMembership> members) {
    for (int i = 0; i < members.size(); i++) {
      if (members.get(i).isPrimary()) {
        return i;
      }
    }
    throw new IllegalStateException("no primary");
  }

  private static boolean anotherIsPrimary(List<ClusterMembership> members, int old) {
    for (int i = 0; i < members.size(); i++) {
      if (i != old && members.get(i).isPrimary()) {
        return true;
      }
    }
    return false;
  }

  /** Completes with the time of the first notification after which {@code condition} holds. */
  private static CompletableFuture<Long> when(
      ZooKeeperDiscovery discovery, BooleanSupplier condition) {
    CompletableFuture<Long> at = new CompletableFuture<>();
    discovery.subscribe(
        () -> {
          if (!at.isDone() && condition.getAsBoolean()) {
            at.complete(System.nanoTime());
          }
        });
    return at;
  }

  private static void awaitView(ZooKeeperDiscovery discovery, BooleanSupplier condition)
      throws Exception {
    if (!condition.getAsBoolean()) {
      when(discovery, condition).get(10, TimeUnit.SECONDS);
    }
  }

  /** Leadership has no notification towards the others here: poll it every 0.1 ms, bounded. */
  private static void spinUntil(BooleanSupplier condition, Duration limit) {
    long deadline = System.nanoTime() + limit.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("not within " + limit);
      }
      java.util.concurrent.locks.LockSupport.parkNanos(100_000);
    }
  }

  private static void print(String what, List<Long> nanos) {
    List<Long> sorted = new ArrayList<>(nanos);
    sorted.sort(null);
    double median = (sorted.get((sorted.size() - 1) / 2) + sorted.get(sorted.size() / 2)) / 2e6;
    System.out.printf(
        Locale.ROOT,
        "%-80s median %8.1f ms  (min %.1f, max %.1f; %d rounds)%n",
        what,
        median,
        sorted.get(0) / 1e6,
        sorted.get(sorted.size() - 1) / 1e6,
        sorted.size());
  }
}
