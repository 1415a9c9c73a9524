package dev.tether.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.Endpoint;
import dev.tether.Idempotency;
import dev.tether.LoadBalancing;
import dev.tether.Proxy;
import dev.tether.Tether;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A 3-member ZooKeeper ensemble whose leader dies under load. */
class ZooKeeperEnsembleTest {
  private final TestingCluster ensemble = LoopbackZooKeeper.cluster(3);
  private final ZooKeeperRegistry servers = ZooKeeperRegistry.builder(ensemble.getConnectString())
      .sessionTimeout(Duration.ofSeconds(3)).connectionTimeout(Duration.ofSeconds(10)).build();
  private final ZooKeeperRegistry clients = ZooKeeperRegistry.builder(ensemble.getConnectString())
      .sessionTimeout(Duration.ofSeconds(3)).connectionTimeout(Duration.ofSeconds(10)).build();
  private final KvServers kv = new KvServers();
  private final Tether tether = Tether.create();

  @AfterEach
  void stop() throws IOException {
    tether.close();
    kv.close();
    clients.close();
    servers.close();
    ensemble.close();
  }

  @Test
  void killingTheEnsembleLeaderIsInvisibleToCallers() throws Exception {
    servers.register(kv.start("a"));
    servers.register(kv.start("b"));
    ZooKeeperDiscovery discovery = clients.discovery(KvServers.SERVICE);
    List<List<Endpoint>> views = new CopyOnWriteArrayList<>();
    discovery.subscribe(() -> views.add(discovery.endpoints()));
    assertThat(discovery.endpoints()).hasSize(2);
    Proxy proxy = tether.proxy(KvServers.SERVICE, discovery).withLoadBalancing(LoadBalancing.ROUND_ROBIN);
    CallLoad load = new CallLoad(proxy, 4, "increment", Idempotency.NOT_IDEMPOTENT, 20_000, Duration.ofSeconds(20));
    try (load) {
      await().atMost(Duration.ofSeconds(5)).until(() -> load.succeeded() > 100);
      assertThat(ensemble.killServer(leader())).isTrue();
      // The registry still works on the new leader: a server registered now gets traffic.
      servers.register(kv.start("c"));
      await().atMost(Duration.ofSeconds(15)).until(() -> kv.served("c") > 0);
    }
    assertThat(load.failures()).isEmpty();
    assertThat(views).allSatisfy(view -> assertThat(view).hasSizeGreaterThanOrEqualTo(2));
    assertThat(kv.executions().values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
  }

  /** The member that says "Mode: leader" to the srvr four-letter command. */
  private InstanceSpec leader() throws IOException {
    for (InstanceSpec spec : ensemble.getInstances()) {
      if (srvr(spec).contains("Mode: leader")) {
        return spec;
      }
    }
    throw new AssertionError("no member of the ensemble leads");
  }

  private static String srvr(InstanceSpec spec) throws IOException {
    try (Socket s = new Socket("127.0.0.1", spec.getPort())) {
      OutputStream out = s.getOutputStream();
      out.write("srvr".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
    }
  }
}
