package dev.tether.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tether.LoadBalancing;
import dev.tether.NoAvailableNodeException;
import dev.tether.Proxy;
import dev.tether.Tether;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A ZooKeeper discovery started before any server registers is an answer, not a wait, on a real
 * ZooKeeper: a call fails at once with {@link NoAvailableNodeException} naming the discovery, a
 * server registered later takes the next call, and a call that waits for ready takes it as soon as
 * it registers.
 */
class EmptyZooKeeperDiscoveryTest {
  private static final Duration PATIENCE = Duration.ofSeconds(10);

  private final TestingServer zookeeper = LoopbackZooKeeper.server();
  private final ZooKeeperRegistry servers = registry();
  private final ZooKeeperRegistry clients = registry();
  private final KvServers kv = new KvServers();
  private final Tether tether = Tether.create();

  private ZooKeeperRegistry registry() {
    return ZooKeeperRegistry.builder(zookeeper.getConnectString())
        .sessionTimeout(Duration.ofSeconds(2))
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

  private Proxy balanced(ZooKeeperDiscovery discovery) {
    return tether
        .proxy(KvServers.SERVICE, discovery)
        .withLoadBalancing(LoadBalancing.ROUND_ROBIN)
        .withInvocationTimeout(Duration.ofSeconds(10));
  }

  @Test
  void aCallThroughADiscoveryWithNoServerFailsAtOnceNamingItAndALaterServerTakesTheNextCall() {
    ZooKeeperDiscovery discovery = clients.discovery(KvServers.SERVICE);
    Proxy proxy = balanced(discovery);
    long start = System.nanoTime();

    assertThatThrownBy(() -> proxy.invoke("whoami", new byte[0]))
        .isInstanceOf(NoAvailableNodeException.class)
        .hasMessageContaining("ZooKeeper discovery of kv")
        .hasMessageContaining("lists none");
    assertThat((System.nanoTime() - start) / 1_000_000)
        .as("at once, not at the 10 s timeout")
        .isLessThan(5_000);

    servers.register(kv.start("late"));
    await().atMost(PATIENCE).until(() -> !discovery.endpoints().isEmpty());

    assertThat(proxy.invoke("whoami", new byte[0])).asString().isEqualTo("late");
  }

  @Test
  void aCallWaitingForReadyOnAnEmptyDiscoveryTakesTheFirstServerThatRegisters() throws Exception {
    ZooKeeperDiscovery discovery = clients.discovery(KvServers.SERVICE);
    CompletableFuture<byte[]> waiting =
        balanced(discovery).withWaitForReady(true).invokeAsync("whoami", new byte[0]);
    assertThat(waiting).isNotDone();

    servers.register(kv.start("first"));

    assertThat(new String(waiting.get(10, TimeUnit.SECONDS), StandardCharsets.UTF_8))
        .isEqualTo("first");
  }
}
