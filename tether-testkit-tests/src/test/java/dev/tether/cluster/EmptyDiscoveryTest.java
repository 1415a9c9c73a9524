package dev.tether.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.Endpoint;
import dev.tether.Idempotency;
import dev.tether.LoadBalancing;
import dev.tether.NoAvailableNodeException;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.spi.Discovery;
import dev.tether.spi.DnsDiscovery;
import dev.tether.spi.StaticDiscovery;
import dev.tether.testkit.FakeClock;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An empty discovery is an answer, not a wait, on real sockets: a load-balanced call fails at once
 * with NoAvailableNodeException naming the discovery (static, or DNS whose answer is empty), a call
 * that waits for ready takes the first server that appears, and a later server is used.
 */
class EmptyDiscoveryTest {
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private TetherServer server() {
    TetherServer s =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service("svc", (op, payload, ctx) -> "here".getBytes(StandardCharsets.UTF_8))
            .build()
            .start();
    closeables.add(s);
    return s;
  }

  private Proxy proxy(Discovery discovery) {
    Tether t = Tether.builder().build();
    closeables.add(t);
    return t.proxy("svc", discovery).withLoadBalancing(LoadBalancing.ROUND_ROBIN);
  }

  private static String call(Proxy p) throws Exception {
    return new String(
        p.invokeAsync("who", new byte[0], Idempotency.IDEMPOTENT).get(10, TimeUnit.SECONDS),
        StandardCharsets.UTF_8);
  }

  /** The call fails within a second (no invocation timeout is set) and names {@code discovery}. */
  private static void failsAtOnce(Proxy p, String naming) {
    CompletableFuture<byte[]> call = p.invokeAsync("who", new byte[0], Idempotency.IDEMPOTENT);
    assertThatThrownBy(() -> call.get(1, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(NoAvailableNodeException.class)
        .hasMessageContaining(naming);
  }

  @Test
  void emptyStaticDiscoveryFailsACallAtOnceAndALaterServerIsUsed() throws Exception {
    StaticDiscovery discovery = StaticDiscovery.of();
    Proxy p = proxy(discovery);

    failsAtOnce(p, "static discovery");

    discovery.add(server().endpoints().get(0).toString());
    assertThat(call(p)).isEqualTo("here");
  }

  @Test
  void callWaitingForReadyOnAnEmptyDiscoveryTakesTheFirstServerThatAppears() throws Exception {
    StaticDiscovery discovery = StaticDiscovery.of();
    Proxy p = proxy(discovery).withWaitForReady(true).withInvocationTimeout(Duration.ofSeconds(10));
    CompletableFuture<byte[]> waiting = p.invokeAsync("who", new byte[0], Idempotency.IDEMPOTENT);

    discovery.add(server().endpoints().get(0).toString());

    assertThat(new String(waiting.get(10, TimeUnit.SECONDS), StandardCharsets.UTF_8))
        .isEqualTo("here");
  }

  @Test
  void emptyDnsAnswerFailsACallAtOnceAndALaterServerIsUsed() throws Exception {
    int port = server().endpoints().get(0).port();
    AtomicReference<List<String>> answer = new AtomicReference<>(List.of());
    FakeClock clock = new FakeClock();
    DnsDiscovery dns =
        new DnsDiscovery(
            Endpoint.parse("tcp -h nodes.test -p " + port),
            host -> {
              List<InetAddress> out = new ArrayList<>();
              for (String ip : answer.get()) {
                out.add(InetAddress.getByName(ip));
              }
              return out;
            },
            Duration.ofSeconds(30),
            Duration.ofSeconds(1),
            clock,
            clock);
    closeables.add(dns);
    Proxy p = proxy(dns);

    failsAtOnce(p, "nodes.test");

    answer.set(List.of("127.0.0.1"));
    clock.forward(Duration.ofSeconds(30));
    assertThat(call(p)).isEqualTo("here");
  }

  @Test
  void aDiscoveryFlippingBetweenEmptyAndOneServerNeverLeavesACallHanging() throws Exception {
    StaticDiscovery discovery = StaticDiscovery.of();
    List<Endpoint> one = List.of(server().endpoints().get(0));
    Proxy p = proxy(discovery);
    Proxy waiting = p.withWaitForReady(true).withInvocationTimeout(Duration.ofSeconds(10));
    java.util.concurrent.atomic.AtomicBoolean flipping =
        new java.util.concurrent.atomic.AtomicBoolean(true);
    CompletableFuture<Void> flipper =
        CompletableFuture.runAsync(
            () -> {
              // Bounded: 2,000 flips at most, fewer when the callers are done first.
              for (int i = 0; i < 2_000 && flipping.get(); i++) {
                discovery.set(i % 2 == 0 ? one : List.of());
              }
              discovery.set(one);
            });
    int answered = 0;
    int noNode = 0;
    try {
      for (int i = 0; i < 200; i++) {
        CompletableFuture<byte[]> call = p.invokeAsync("who", new byte[0], Idempotency.IDEMPOTENT);
        CompletableFuture<byte[]> patient =
            waiting.invokeAsync("who", new byte[0], Idempotency.IDEMPOTENT);
        try {
          call.get(5, TimeUnit.SECONDS);
          answered++;
        } catch (ExecutionException e) {
          assertThat(e.getCause()).isInstanceOf(NoAvailableNodeException.class);
          noNode++;
        }
        // One that may wait for a server always gets one: the list is never empty for long.
        assertThat(new String(patient.get(10, TimeUnit.SECONDS), StandardCharsets.UTF_8))
            .isEqualTo("here");
      }
    } finally {
      flipping.set(false);
    }
    flipper.get(10, TimeUnit.SECONDS);

    assertThat(answered + noNode).isEqualTo(200);
    assertThat(call(p)).isEqualTo("here");
  }
}
