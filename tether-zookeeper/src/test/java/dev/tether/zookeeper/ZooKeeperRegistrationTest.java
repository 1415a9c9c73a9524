package dev.tether.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.observe.TetherEvent;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.KillSession;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Registration on a real ZooKeeper (Curator's TestingServer on 127.0.0.1). */
class ZooKeeperRegistrationTest {
  private static final Duration SESSION = Duration.ofSeconds(2);

  private final TestingServer zookeeper = LoopbackZooKeeper.server();
  private final ZooKeeperRegistry registry =
      ZooKeeperRegistry.builder(zookeeper.getConnectString())
          .sessionTimeout(SESSION)
          .connectionTimeout(Duration.ofSeconds(10))
          .build();
  private final KvServers servers = new KvServers();

  @AfterEach
  void stop() throws Exception {
    servers.close();
    registry.close();
    zookeeper.close();
  }

  private Stat node(String service, TetherServer server) throws Exception {
    return registry
        .curator()
        .checkExists()
        .forPath("/tether/services/" + service + "/" + server.serverId());
  }

  @Test
  void everyServiceOfARunningServerIsRegisteredWithItsEndpointsVersionAndWeight() throws Exception {
    TetherServer server =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .version("2.1.0")
            .service("kv", (op, payload, ctx) -> payload)
            .service("echo", (op, payload, ctx) -> payload)
            .build()
            .start();
    try (server) {
      registry.register(server, 3);
      byte[] data =
          registry.curator().getData().forPath("/tether/services/echo/" + server.serverId());
      assertThat(RegisteredServer.fromJsonOrNull(data))
          .isEqualTo(
              new RegisteredServer(
                  server.serverId(), List.of(server.endpoints().get(0).toString()), "2.1.0", 3));
      assertThat(node("kv", server).getEphemeralOwner()).isEqualTo(sessionId(registry.curator()));
    }
  }

  @Test
  void registrationVanishesWhenTheServerShutsDownGracefully() throws Exception {
    TetherServer server = servers.start("a");
    registry.register(server);
    assertThat(node(KvServers.SERVICE, server)).isNotNull();
    server.shutdownGracefully(Duration.ofSeconds(5));
    assertThat(node(KvServers.SERVICE, server)).isNull();
  }

  @Test
  void withdrawsRegistrationBeforeTheDrainStarts() throws Exception {
    List<String> seenAtGoaway = new CopyOnWriteArrayList<>();
    String[] path = new String[1];
    TetherServer server =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service(
                KvServers.SERVICE,
                (op, payload, ctx) -> {
                  servers.release();
                  return payload;
                })
            .listener(
                event -> {
                  if (event.kind() == TetherEvent.Kind.GOAWAY_SENT) {
                    seenAtGoaway.add(existsNow(path[0]) ? "registered" : "withdrawn");
                  }
                })
            .build()
            .start();
    path[0] = "/tether/services/kv/" + server.serverId();
    registry.register(server);
    try (Tether tether = Tether.create()) {
      // A connection, so that the drain has someone to send GOAWAY to.
      tether.proxy(server.proxyString(KvServers.SERVICE)).invoke("whoami", new byte[0]);
      server.shutdownGracefully(Duration.ofSeconds(5));
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> !seenAtGoaway.isEmpty());
    assertThat(seenAtGoaway).containsOnly("withdrawn");
  }

  private boolean existsNow(String path) {
    try {
      return registry.curator().checkExists().forPath(path) != null;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void callsInFlightFinishAfterTheWithdrawal() throws Exception {
    TetherServer server = servers.start("a");
    registry.register(server);
    try (Tether tether = Tether.create()) {
      Proxy kv = tether.proxy(server.proxyString(KvServers.SERVICE));
      CompletableFuture<byte[]> held = kv.invokeAsync("hold", new byte[0]);
      servers.holding.await();
      CompletableFuture<Void> shutdown =
          CompletableFuture.runAsync(() -> server.shutdownGracefully(Duration.ofSeconds(10)));
      await().atMost(Duration.ofSeconds(5)).until(() -> node(KvServers.SERVICE, server) == null);
      assertThat(held).isNotDone();
      servers.release();
      assertThat(held.get()).asString().isEqualTo("a");
      shutdown.get();
    }
  }

  @Test
  void closingTheRegistryWithdrawsEveryRegistration() throws Exception {
    TetherServer a = servers.start("a");
    TetherServer b = servers.start("b");
    registry.register(a);
    registry.register(b);
    try (CuratorFramework observer = TestClients.connect(zookeeper)) {
      registry.close();
      assertThat(observer.getChildren().forPath("/tether/services/kv")).isEmpty();
    }
  }

  @Test
  void reRegistersAfterTheSessionExpires() throws Exception {
    TetherServer server = servers.start("a");
    registry.register(server);
    long before = node(KvServers.SERVICE, server).getEphemeralOwner();
    KillSession.kill(registry.curator().getZookeeperClient().getZooKeeper());
    await()
        .atMost(SESSION.multipliedBy(5))
        .until(
            () -> {
              Stat now = node(KvServers.SERVICE, server);
              return now != null
                  && now.getEphemeralOwner() != before
                  && now.getEphemeralOwner() == sessionId(registry.curator());
            });
  }

  private static long sessionId(CuratorFramework client) throws Exception {
    return client.getZookeeperClient().getZooKeeper().getSessionId();
  }
}
