package dev.tether.micrometer;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.LoadBalancing;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.testkit.FaultProxy;
import dev.tether.testkit.HeldStreams;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Meters over a real server and client on loopback, read back from the registries. */
class TetherMetricsTest {
  private static final Duration FAST = Duration.ofMillis(50);

  private final HeldStreams feeds = new HeldStreams();
  private TetherServer server;
  private Tether tether;
  private FaultProxy wire;

  @AfterEach
  void close() {
    if (wire != null) {
      wire.close();
    }
    if (tether != null) {
      tether.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private Proxy start() {
    server =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service(
                "echo",
                (op, payload, ctx) -> {
                  if (op.equals("fail")) {
                    throw new IllegalStateException("asked to fail");
                  }
                  return payload;
                })
            .streamService("feed", feeds)
            .build()
            .start();
    tether = Tether.create();
    return tether.proxy(server.proxyString("echo")).withLoadBalancing(LoadBalancing.ROUND_ROBIN);
  }

  @Test
  void clientCallsAreCountedByOutcome() {
    Proxy echo = start();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    TetherMetrics metrics = TetherMetrics.bind(tether, registry, FAST);
    try {
      for (int i = 0; i < 20; i++) {
        echo.invoke("echo", "hi".getBytes(UTF_8));
      }
      for (int i = 0; i < 3; i++) {
        try {
          echo.invoke("fail", new byte[0]);
        } catch (RuntimeException expected) {
          // The failure is what is counted.
        }
      }
      await()
          .atMost(Duration.ofSeconds(5))
          .untilAsserted(
              () -> {
                assertThat(
                        registry
                            .get("tether.client.calls")
                            .tag("outcome", "ok")
                            .functionCounter()
                            .count())
                    .isEqualTo(20);
                assertThat(
                        registry
                            .get("tether.client.calls")
                            .tag("outcome", "failed")
                            .functionCounter()
                            .count())
                    .isEqualTo(3);
                assertThat(
                        registry
                            .get("tether.client.connections")
                            .tag("state", "ACTIVE")
                            .gauge()
                            .value())
                    .isEqualTo(1);
                assertThat(
                        registry.get("tether.client.nodes").tag("health", "ALIVE").gauge().value())
                    .isEqualTo(1);
                // Every health core reports has its gauge, at 0 while no node is in it.
                for (String health : List.of("DEAD", "INCOMPATIBLE", "EJECTED", "PROBING")) {
                  assertThat(
                          registry.get("tether.client.nodes").tag("health", health).gauge().value())
                      .isZero();
                }
                assertThat(registry.get("tether.client.call.latency").timer().count()).isPositive();
              });
    } finally {
      metrics.close();
    }
  }

  @Test
  void closingTheBindingRemovesItsMeters() {
    start();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    TetherMetrics metrics = TetherMetrics.bind(tether, registry, FAST);
    assertThat(registry.find("tether.client.calls").meters()).hasSize(2);
    metrics.close();
    assertThat(registry.find("tether.client.calls").meters()).isEmpty();
  }

  @Test
  void serverMetersFollowItsStatus() {
    Proxy echo = start();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    TetherMetrics metrics = TetherMetrics.bind(server, registry);
    try {
      for (int i = 0; i < 7; i++) {
        echo.invoke("echo", "hi".getBytes(UTF_8));
      }
      assertThat(registry.get("tether.server.calls").functionCounter().count()).isEqualTo(7);
      assertThat(registry.get("tether.server.connections").gauge().value()).isEqualTo(1);
      assertThat(registry.get("tether.server.inflight").gauge().value()).isZero();
    } finally {
      metrics.close();
    }
  }

  @Test
  void prometheusScrapeShowsClientAndServerMeters() {
    Proxy echo = start();
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    TetherMetrics client = TetherMetrics.bind(tether, registry, FAST);
    TetherMetrics metrics = TetherMetrics.bind(server, registry);
    try {
      for (int i = 0; i < 5; i++) {
        echo.invoke("echo", "hi".getBytes(UTF_8));
      }
      await()
          .atMost(Duration.ofSeconds(5))
          .untilAsserted(
              () ->
                  assertThat(registry.scrape())
                      .contains("tether_client_calls_total{outcome=\"ok\",protocol=\"tether\"} 5.0")
                      .contains(
                          "tether_client_connections{protocol=\"tether\",state=\"ACTIVE\"} 1.0")
                      .contains("tether_client_nodes{health=\"ALIVE\"} 1.0")
                      .contains("tether_client_retries_total{reason=\"retried\"} 0.0")
                      .contains("tether_client_call_latency_seconds{quantile=\"0.99\"}")
                      .containsPattern(
                          "tether_server_calls_total\\{protocol=\"tether\",server=\"[^\"]+\"} 5.0")
                      .containsPattern(
                          "tether_server_inflight\\{protocol=\"tether\",server=\"[^\"]+\"} 0.0"));
    } finally {
      client.close();
      metrics.close();
    }
  }

  @Test
  void clientStreamMetersShowTheOpenStreamAndCountItsEventsAndItsItemsWhileItRuns()
      throws Exception {
    start();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    TetherMetrics metrics = TetherMetrics.bind(tether, registry, FAST);
    try {
      HeldStreams.Reader reader = new HeldStreams.Reader();
      tether.proxy(server.proxyString("feed")).stream("watch", new byte[0]).subscribe(reader);
      await()
          .atMost(Duration.ofSeconds(5))
          .untilAsserted(
              () -> {
                assertThat(registry.get("tether.client.streams").gauge().value()).isEqualTo(1);
                assertThat(streamEvents(registry, "tether.client", "opened")).isEqualTo(1);
                // The client hears its stream open before the server runs the service.
                assertThat(feeds.subscribed()).as("streams the server subscribed to").isOne();
              });
      assertThat(streamEvents(registry, "tether.client", "closed")).isZero();

      for (int i = 0; i < 3; i++) {
        feeds.sendToAll("tick".getBytes(UTF_8));
      }
      await()
          .atMost(Duration.ofSeconds(5))
          .untilAsserted(
              () -> assertThat(streamItems(registry, "tether.client", "received")).isEqualTo(3));
      assertThat(registry.get("tether.client.streams").gauge().value())
          .as("counted while it runs")
          .isEqualTo(1);
      feeds.completeAll();
      reader.done().get(5, TimeUnit.SECONDS);

      await()
          .atMost(Duration.ofSeconds(5))
          .untilAsserted(
              () -> {
                assertThat(registry.get("tether.client.streams").gauge().value()).isZero();
                assertThat(streamEvents(registry, "tether.client", "closed")).isEqualTo(1);
              });
      assertThat(streamItems(registry, "tether.client", "received")).isEqualTo(3);
      assertThat(streamItems(registry, "tether.client", "sent")).isZero();
      assertThat(streamEvents(registry, "tether.client", "lost")).isZero();
    } finally {
      metrics.close();
    }
    assertThat(registry.find("tether.client.stream.events").meters()).isEmpty();
  }

  @Test
  void serverStreamMetersShowTheOpenStreamAndCountWhatItSentWhileItRuns() throws Exception {
    start();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    TetherMetrics metrics = TetherMetrics.bind(server, registry);
    try {
      HeldStreams.Reader reader = new HeldStreams.Reader();
      tether.proxy(server.proxyString("feed")).stream("watch", new byte[0]).subscribe(reader);
      await()
          .atMost(Duration.ofSeconds(5))
          .untilAsserted(
              () -> {
                assertThat(
                        registry.get("tether.server.streams").tag("state", "open").gauge().value())
                    .isEqualTo(1);
                assertThat(streamEvents(registry, "tether.server", "opened")).isEqualTo(1);
                // The server counts the stream open before it runs the service.
                assertThat(feeds.subscribed()).as("streams the server subscribed to").isOne();
              });
      assertThat(registry.get("tether.server.streams").tag("state", "detached").gauge().value())
          .isZero();

      for (int i = 0; i < 4; i++) {
        feeds.sendToAll("tick".getBytes(UTF_8));
      }
      await()
          .atMost(Duration.ofSeconds(5))
          .untilAsserted(
              () -> assertThat(streamItems(registry, "tether.server", "sent")).isEqualTo(4));
      assertThat(registry.get("tether.server.streams").tag("state", "open").gauge().value())
          .isEqualTo(1);
      feeds.completeAll();
      reader.done().get(5, TimeUnit.SECONDS);

      await()
          .atMost(Duration.ofSeconds(5))
          .untilAsserted(
              () -> {
                assertThat(
                        registry.get("tether.server.streams").tag("state", "open").gauge().value())
                    .isZero();
                assertThat(streamEvents(registry, "tether.server", "closed")).isEqualTo(1);
                assertThat(streamItems(registry, "tether.server", "sent")).isEqualTo(4);
              });
    } finally {
      metrics.close();
    }
  }

  @Test
  void streamResumedThroughAResetIsCountedOnBothSides() throws Exception {
    start();
    wire = FaultProxy.start("127.0.0.1", server.endpoints().get(0).port());
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    TetherMetrics client = TetherMetrics.bind(tether, registry, FAST);
    TetherMetrics served = TetherMetrics.bind(server, registry);
    try {
      HeldStreams.Reader reader = new HeldStreams.Reader();
      tether.proxy("feed:" + wire.endpoint()).stream("watch", new byte[0]).subscribe(reader);
      // Both ends hold the stream open: a reset before the client heard the answer would fail the
      // opening instead.
      await()
          .atMost(Duration.ofSeconds(5))
          .until(
              () ->
                  streamEvents(registry, "tether.server", "opened") == 1
                      && streamEvents(registry, "tether.client", "opened") == 1);

      wire.resetAll();

      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () -> {
                assertThat(reader.done()).as("the stream goes on").isNotDone();
                assertThat(streamEvents(registry, "tether.client", "resumed")).isEqualTo(1);
                assertThat(streamEvents(registry, "tether.server", "resumed")).isEqualTo(1);
                assertThat(registry.get("tether.client.streams").gauge().value()).isEqualTo(1);
              });
      assertThat(streamEvents(registry, "tether.client", "lost")).isZero();
      assertThat(reader.done()).isNotDone();
    } finally {
      client.close();
      served.close();
    }
  }

  private static double streamEvents(SimpleMeterRegistry registry, String prefix, String event) {
    return registry.get(prefix + ".stream.events").tag("event", event).functionCounter().count();
  }

  private static double streamItems(SimpleMeterRegistry registry, String prefix, String direction) {
    return registry
        .get(prefix + ".stream.items")
        .tag("direction", direction)
        .functionCounter()
        .count();
  }
}
