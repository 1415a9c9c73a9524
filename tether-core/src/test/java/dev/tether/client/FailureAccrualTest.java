package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.Idempotency;
import dev.tether.LoadBalancing;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.observe.NodeStatus;
import dev.tether.observe.TetherEvent;
import dev.tether.protocol.Response;
import dev.tether.protocol.Status;
import dev.tether.testing.ManualClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Failure accrual (docs/guide.md, clusters) over real connections: a node whose connection is fine
 * but which answers INTERNAL to every call is ejected, the others carry the load, and a good probe
 * brings it back. The ejections and the success-rate window run on a fake clock, so how long the
 * calls take on a loaded machine decides nothing.
 */
class FailureAccrualTest {
  private final ManualClock clock = new ManualClock(1_000_000_000L);
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final List<TetherEvent> events = new CopyOnWriteArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private TetherServer healthy(AtomicInteger served) {
    TetherServer s =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service(
                "svc",
                (op, payload, ctx) -> {
                  served.incrementAndGet();
                  return "ok".getBytes(StandardCharsets.UTF_8);
                })
            .build()
            .start();
    closeables.add(s);
    return s;
  }

  private static NodeStatus node(Tether t, int port) {
    return t.status().nodes().stream()
        .filter(n -> n.endpoint().endsWith("-p " + port))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void nodeAnsweringInternalIsEjectedAfterTheThresholdAndReadmittedAfterAGoodProbe()
      throws Exception {
    AtomicBoolean broken = new AtomicBoolean(true);
    ScriptedServer sick =
        new ScriptedServer(
            r ->
                new Response(
                    r.requestId(),
                    broken.get() ? Status.INTERNAL : Status.OK,
                    Map.of(),
                    "sick".getBytes(StandardCharsets.UTF_8)));
    closeables.add(sick);
    AtomicInteger servedByOthers = new AtomicInteger();
    TetherServer a = healthy(servedByOthers);
    TetherServer b = healthy(servedByOthers);
    Tether t =
        Tether.builder()
            .property("tether.cluster.ejection.failures", "5")
            .property("tether.cluster.ejection.base", "2s")
            .ticker(clock)
            .scheduler(clock)
            .listener(events::add)
            .build();
    closeables.add(t);
    Proxy p =
        t.proxy(
                "svc:tcp -h 127.0.0.1 -p "
                    + sick.port()
                    + ":"
                    + a.endpoints().get(0)
                    + ":"
                    + b.endpoints().get(0))
            .withLoadBalancing(LoadBalancing.ROUND_ROBIN);

    for (int i = 0; i < 30; i++) {
      assertThat(
              new String(
                  p.invoke("read", new byte[0], Idempotency.IDEMPOTENT), StandardCharsets.UTF_8))
          .isEqualTo("ok");
    }

    // The clock stands still: the ejection lasts however long the thirty calls took.
    assertThat(sick.requestsSeen()).as("ejected after five failures in a row").isEqualTo(5);
    assertThat(node(t, sick.port()).health()).isEqualTo("EJECTED");
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                events.stream()
                    .anyMatch(
                        e ->
                            e.kind() == TetherEvent.Kind.NODE_EJECTED
                                && e.detail().contains("ejected")
                                && e.detail().contains("5 failed call(s) in a row")));

    broken.set(false);
    clock.forward(Duration.ofMillis(1999));
    assertThat(node(t, sick.port()).health()).as("ejected for two seconds").isEqualTo("EJECTED");
    clock.forward(Duration.ofMillis(1));
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> node(t, sick.port()).health().equals("PROBING"));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              p.invoke("read", new byte[0], Idempotency.IDEMPOTENT);
              return events.stream()
                  .anyMatch(
                      e -> e.kind() == TetherEvent.Kind.NODE_ALIVE && e.detail().contains("probe"));
            });
    assertThat(sick.requestsSeen()).isGreaterThan(5);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> node(t, sick.port()).health().equals("ALIVE"));
  }

  @Test
  void nodeWhoseSuccessRateFallsUnderTheThresholdIsEjectedThoughItNeverFailsFiveTimesInARow()
      throws Exception {
    AtomicInteger answered = new AtomicInteger();
    // Two of every three calls fail: never five in a row, but a third of them succeed.
    ScriptedServer flaky =
        new ScriptedServer(
            r ->
                new Response(
                    r.requestId(),
                    answered.incrementAndGet() % 3 == 0 ? Status.OK : Status.INTERNAL,
                    Map.of(),
                    "flaky".getBytes(StandardCharsets.UTF_8)));
    closeables.add(flaky);
    AtomicInteger servedByOthers = new AtomicInteger();
    TetherServer a = healthy(servedByOthers);
    TetherServer b = healthy(servedByOthers);
    Tether t =
        Tether.builder()
            .property("tether.cluster.ejection.minCalls", "9")
            .ticker(clock)
            .scheduler(clock)
            .listener(events::add)
            .build();
    closeables.add(t);
    Proxy p =
        t.proxy(
                "svc:tcp -h 127.0.0.1 -p "
                    + flaky.port()
                    + ":"
                    + a.endpoints().get(0)
                    + ":"
                    + b.endpoints().get(0))
            .withLoadBalancing(LoadBalancing.ROUND_ROBIN);

    for (int i = 0; i < 90; i++) {
      p.invoke("read", new byte[0], Idempotency.IDEMPOTENT);
    }

    assertThat(node(t, flaky.port()).health()).isEqualTo("EJECTED");
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                events.stream()
                    .anyMatch(
                        e ->
                            e.kind() == TetherEvent.Kind.NODE_EJECTED
                                && e.detail().contains("of its last")
                                && e.detail().contains("calls succeeded")));
  }

  @Test
  void neverMoreThanTheAllowedShareOfAGroupIsEjected() throws Exception {
    ScriptedServer sick =
        new ScriptedServer(
            r -> new Response(r.requestId(), Status.INTERNAL, Map.of(), new byte[0]));
    ScriptedServer sicker =
        new ScriptedServer(
            r -> new Response(r.requestId(), Status.INTERNAL, Map.of(), new byte[0]));
    closeables.add(sick);
    closeables.add(sicker);
    Tether t = Tether.builder().property("tether.cluster.ejection.failures", "2").build();
    closeables.add(t);
    Proxy p =
        t.proxy("svc:tcp -h 127.0.0.1 -p " + sick.port() + ":tcp -h 127.0.0.1 -p " + sicker.port())
            .withLoadBalancing(LoadBalancing.ROUND_ROBIN);

    for (int i = 0; i < 10; i++) {
      try {
        p.invoke("read", new byte[0]);
      } catch (dev.tether.TetherException expected) {
        // Not idempotent: INTERNAL fails it; the point here is what the group does with the nodes.
      }
    }

    long ejected = t.status().nodes().stream().filter(n -> n.health().equals("EJECTED")).count();
    assertThat(ejected).as("half of two nodes").isEqualTo(1);
  }
}
