package dev.tether.grpc;

import static dev.tether.grpc.InteropService.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.Endpoint;
import dev.tether.LoadBalancing;
import dev.tether.Resolver;
import dev.tether.Tether;
import dev.tether.spi.DnsDiscovery;
import dev.tether.spi.StaticDiscovery;
import dev.tether.testing.ManualClock;
import dev.tether.zookeeper.LoopbackZooKeeper;
import dev.tether.zookeeper.ZooKeeperDiscovery;
import dev.tether.zookeeper.ZooKeeperRegistry;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A load-balanced Tether channel whose gRPC servers (grpc-java's own) come from discovery, static,
 * DNS or ZooKeeper: the servers it lists take the calls, one it adds joins the rotation, and one it
 * removes takes no more.
 */
@Timeout(90)
class TetherChannelDiscoveryTest {
  private final Tether tether = Tether.create();
  private final List<Server> servers = new ArrayList<>();
  private final List<AutoCloseable> others = new ArrayList<>();
  private ManagedChannel channel;

  @AfterEach
  void stop() throws Exception {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    tether.close();
    for (Server s : servers) {
      s.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    for (int i = others.size() - 1; i >= 0; i--) {
      others.get(i).close();
    }
  }

  private String serve(CountingService service) throws IOException {
    Server s =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(service.definition())
            .build()
            .start();
    servers.add(s);
    return "tcp -h 127.0.0.1 -p " + s.getPort();
  }

  private String call() {
    return text(
        ClientCalls.blockingUnaryCall(
            channel,
            CountingService.CALL,
            CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS),
            text("x")));
  }

  @Test
  void aStaticDiscoveryOfGrpcServersBalancesCallsAndFollowsItsChanges() throws Exception {
    CountingService a = new CountingService("a");
    CountingService b = new CountingService("b");
    CountingService c = new CountingService("c");
    String aEndpoint = serve(a);
    StaticDiscovery discovery = StaticDiscovery.of(aEndpoint, serve(b));
    channel =
        TetherGrpc.channel(
            tether.proxy("counting", discovery).withLoadBalancing(LoadBalancing.ROUND_ROBIN));

    for (int i = 0; i < 200 && (a.calls.get() == 0 || b.calls.get() == 0); i++) {
      call();
    }
    assertThat(a.calls.get()).isPositive();
    assertThat(b.calls.get()).isPositive();

    discovery.add(serve(c));
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(1))
        .until(() -> call().equals("c"));

    discovery.remove(aEndpoint);
    // The group drops the node once discovery's change reached it; from then on it is never chosen.
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () -> tether.status().nodes().stream().noneMatch(n -> n.endpoint().equals(aEndpoint)));
    int aBefore = a.calls.get();
    List<String> answers = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      answers.add(call());
    }
    assertThat(answers).containsOnly("b", "c").contains("b", "c");
    assertThat(a.calls.get()).isEqualTo(aBefore);
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                tether.status().connections().stream()
                    .noneMatch(s -> s.endpoint().equals(aEndpoint)));
  }

  @Test
  void aDnsDiscoveryOfGrpcServersBalancesOverTheNamesAddressesAndFollowsItsAnswers()
      throws Exception {
    CountingService a = new CountingService("a");
    CountingService b = new CountingService("b");
    // One port on two loopback addresses, as a name's A records give one service port.
    Server first =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(a.definition())
            .build()
            .start();
    servers.add(first);
    int port = first.getPort();
    servers.add(
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.2", port))
            .addService(b.definition())
            .build()
            .start());
    AtomicReference<List<String>> answer = new AtomicReference<>(List.of("127.0.0.1", "127.0.0.2"));
    Resolver dns =
        host -> {
          assertThat(host).isEqualTo("counting.grpc.test");
          List<InetAddress> addresses = new ArrayList<>();
          for (String ip : answer.get()) {
            addresses.add(InetAddress.getByName(ip));
          }
          return addresses;
        };
    ManualClock clock = new ManualClock(0);
    DnsDiscovery discovery =
        new DnsDiscovery(
            Endpoint.parse("tcp -h counting.grpc.test -p " + port),
            dns,
            Duration.ofSeconds(30),
            Duration.ofSeconds(1),
            clock,
            clock);
    others.add(discovery);
    channel =
        TetherGrpc.channel(
            tether.proxy("counting", discovery).withLoadBalancing(LoadBalancing.ROUND_ROBIN));

    for (int i = 0; i < 200 && (a.calls.get() == 0 || b.calls.get() == 0); i++) {
      call();
    }
    assertThat(a.calls.get()).isPositive();
    assertThat(b.calls.get()).isPositive();

    answer.set(List.of("127.0.0.2"));
    clock.forward(Duration.ofSeconds(30));
    String gone = "tcp -h 127.0.0.1 -p " + port;
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> tether.status().nodes().stream().noneMatch(n -> n.endpoint().equals(gone)));
    int aBefore = a.calls.get();
    for (int i = 0; i < 20; i++) {
      assertThat(call()).isEqualTo("b");
    }
    assertThat(a.calls.get()).isEqualTo(aBefore);
  }

  /**
   * What a server that is not Tether's (here grpc-java's) registers for itself, as its deployment
   * would: the registry's JSON record in an ephemeral node under the service.
   */
  private static void register(ZooKeeperRegistry registry, String id, String endpoint)
      throws Exception {
    String record =
        "{\"serverId\":\""
            + id
            + "\",\"endpoints\":[\""
            + endpoint
            + "\"],\"version\":\"1.0\",\"weight\":1}";
    registry
        .curator()
        .create()
        .creatingParentsIfNeeded()
        .withMode(CreateMode.EPHEMERAL)
        .forPath("/tether/services/counting/" + id, record.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void grpcServersRegisteredInZooKeeperAreBalancedAndOneWithdrawnTakesNoMoreCalls()
      throws Exception {
    TestingServer zooKeeper = LoopbackZooKeeper.server();
    others.add(zooKeeper);
    ZooKeeperRegistry registry = ZooKeeperRegistry.connect(zooKeeper.getConnectString());
    others.add(registry);
    CountingService a = new CountingService("a");
    CountingService b = new CountingService("b");
    register(registry, "a", serve(a));
    register(registry, "b", serve(b));
    ZooKeeperDiscovery discovery = registry.discovery("counting");
    others.add(discovery);
    channel =
        TetherGrpc.channel(
            tether.proxy("counting", discovery).withLoadBalancing(LoadBalancing.ROUND_ROBIN));
    await().atMost(Duration.ofSeconds(20)).until(() -> discovery.endpoints().size() == 2);

    for (int i = 0; i < 200 && (a.calls.get() == 0 || b.calls.get() == 0); i++) {
      call();
    }
    assertThat(a.calls.get()).isPositive();
    assertThat(b.calls.get()).isPositive();

    registry.curator().delete().forPath("/tether/services/counting/a");
    await().atMost(Duration.ofSeconds(20)).until(() -> discovery.endpoints().size() == 1);
    await().atMost(Duration.ofSeconds(20)).until(() -> tether.status().nodes().size() == 1);
    int aBefore = a.calls.get();
    for (int i = 0; i < 20; i++) {
      assertThat(call()).isEqualTo("b");
    }
    assertThat(a.calls.get()).isEqualTo(aBefore);
  }
}
