package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.ConnectionState;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.observe.ConnectionStatus;
import dev.tether.testkit.FakeClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Multiplexing with extra connections under load, with a real server on loopback: one connection
 * per key until its calls in flight reach the limit the server announces, then extra connections
 * (bounded) that close once idle.
 */
class ExtraConnectionsTest {
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final ExecutorService servicePool = Executors.newCachedThreadPool();
  private final CountDownLatch release = new CountDownLatch(1);
  private final Map<String, AtomicInteger> executions = new ConcurrentHashMap<>();
  private final AtomicInteger running = new AtomicInteger();

  @AfterEach
  void stop() throws Exception {
    release.countDown();
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
    servicePool.shutdownNow();
  }

  /** A server taking {@code limit} calls at once per connection, each held until released. */
  private TetherServer heldServer(int limit) {
    TetherServer s =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .maxConcurrentRequests(limit)
            .executor(servicePool)
            .service(
                "svc",
                (op, payload, ctx) -> {
                  executions
                      .computeIfAbsent(
                          new String(payload, StandardCharsets.UTF_8), k -> new AtomicInteger())
                      .incrementAndGet();
                  running.incrementAndGet();
                  release.await(30, TimeUnit.SECONDS);
                  return payload;
                })
            .build()
            .start();
    closeables.add(s);
    return s;
  }

  private Tether tether(Tether.Builder b, String... properties) {
    for (int i = 0; i < properties.length; i += 2) {
      b.property(properties[i], properties[i + 1]);
    }
    Tether t = b.build();
    closeables.add(t);
    return t;
  }

  private static List<CompletableFuture<byte[]>> start(Proxy p, int calls) {
    List<CompletableFuture<byte[]>> out = new ArrayList<>();
    for (int i = 0; i < calls; i++) {
      out.add(p.invokeAsync("hold", ("call-" + i).getBytes(StandardCharsets.UTF_8)));
    }
    return out;
  }

  private static List<ConnectionStatus> open(Tether t) {
    return t.status().connections().stream()
        .filter(c -> c.state() == ConnectionState.ACTIVE)
        .toList();
  }

  private void assertEachAnsweredOnce(List<CompletableFuture<byte[]>> calls) throws Exception {
    for (int i = 0; i < calls.size(); i++) {
      assertThat(new String(calls.get(i).get(10, TimeUnit.SECONDS), StandardCharsets.UTF_8))
          .isEqualTo("call-" + i);
    }
    assertThat(executions).hasSize(calls.size());
    assertThat(executions.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
  }

  @Test
  void serverLimitOf8With20CallsHeldOpensThreeConnectionsAndRunsEachCallOnce() throws Exception {
    TetherServer s = heldServer(8);
    Tether t = tether(Tether.builder());
    List<CompletableFuture<byte[]>> calls = start(t.proxy("svc:" + s.endpoints().get(0)), 20);

    await().atMost(Duration.ofSeconds(10)).until(() -> running.get() == 20);
    assertThat(open(t)).hasSize(3).allSatisfy(c -> assertThat(c.inFlight()).isLessThanOrEqualTo(8));
    assertThat(open(t).stream().mapToInt(ConnectionStatus::inFlight).sum()).isEqualTo(20);
    release.countDown();
    assertEachAnsweredOnce(calls);
  }

  @Test
  void callsUnderTheServerLimitShareOneConnection() throws Exception {
    TetherServer s = heldServer(8);
    Tether t = tether(Tether.builder());
    List<CompletableFuture<byte[]>> calls = start(t.proxy("svc:" + s.endpoints().get(0)), 8);

    await().atMost(Duration.ofSeconds(10)).until(() -> running.get() == 8);
    assertThat(open(t)).hasSize(1);
    release.countDown();
    assertEachAnsweredOnce(calls);
  }

  @Test
  void maxExtraBoundsTheConnectionsAndTheRestWaitForASlot() throws Exception {
    TetherServer s = heldServer(8);
    Tether t = tether(Tether.builder(), "tether.connection.maxExtra", "1");
    List<CompletableFuture<byte[]>> calls = start(t.proxy("svc:" + s.endpoints().get(0)), 20);

    await().atMost(Duration.ofSeconds(10)).until(() -> running.get() == 16);
    assertThat(open(t)).hasSize(2);
    assertThat(calls).noneMatch(CompletableFuture::isDone);
    release.countDown();
    assertEachAnsweredOnce(calls);
  }

  @Test
  void extraConnectionsCloseOnceIdleAndTheKeysOwnStays() throws Exception {
    TetherServer s = heldServer(8);
    FakeClock clock = new FakeClock();
    Tether t =
        tether(
            Tether.builder().ticker(clock).scheduler(clock),
            "tether.heartbeat.readerIdle",
            "0",
            "tether.heartbeat.idleTimeout",
            "0",
            "tether.connection.extraIdleClose",
            "10s");
    List<CompletableFuture<byte[]>> calls = start(t.proxy("svc:" + s.endpoints().get(0)), 20);
    await().atMost(Duration.ofSeconds(10)).until(() -> running.get() == 20);
    release.countDown();
    assertEachAnsweredOnce(calls);

    clock.forward(Duration.ofMillis(9_999));
    assertThat(open(t)).hasSize(3);
    clock.forward(Duration.ofMillis(1));
    await().atMost(Duration.ofSeconds(10)).until(() -> t.status().connections().size() == 1);
    assertThat(open(t)).hasSize(1);
  }
}
