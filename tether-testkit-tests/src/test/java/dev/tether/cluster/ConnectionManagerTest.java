package dev.tether.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.EndpointSelection;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.Topology;
import dev.tether.observe.TetherEvent;
import dev.tether.testkit.FakeClock;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Client reroute with real servers on loopback: the configured server may be a connection manager
 * that only announces where the cluster is; the client moves on to the announced primary, falls
 * back through the configured servers, and counts its reroute retries on the injected clock.
 */
class ConnectionManagerTest {
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final Map<String, AtomicInteger> served = new ConcurrentHashMap<>();
  private final List<TetherEvent> events = new CopyOnWriteArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private TetherServer server(String name) {
    TetherServer s =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service(
                "svc",
                (op, payload, ctx) -> {
                  served.computeIfAbsent(name, k -> new AtomicInteger()).incrementAndGet();
                  return name.getBytes(StandardCharsets.UTF_8);
                })
            .build()
            .start();
    closeables.add(s);
    return s;
  }

  /** A server named "manager" announcing {@code primary} and then {@code alternates}. */
  private TetherServer managerAnnouncing(String primary, String... alternates) {
    TetherServer manager = server("manager");
    manager.setTopology(Topology.of(primary, List.of(alternates)));
    return manager;
  }

  private static String endpoint(TetherServer s) {
    return s.endpoints().get(0).toString();
  }

  /** An endpoint on loopback where nothing listens: connecting is refused. */
  private static String deadEndpoint() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return "tcp -h 127.0.0.1 -p " + s.getLocalPort();
    }
  }

  private Tether tether(Tether.Builder b) {
    Tether t = b.random(new java.util.Random(5)).listener(events::add).build();
    closeables.add(t);
    return t;
  }

  private int served(String name) {
    return served.computeIfAbsent(name, k -> new AtomicInteger()).get();
  }

  private long count(TetherEvent.Kind kind, String endpoint) {
    return events.stream().filter(e -> e.kind() == kind && endpoint.equals(e.endpoint())).count();
  }

  private static String call(Proxy p) {
    return new String(p.invoke("hello", new byte[0]), StandardCharsets.UTF_8);
  }

  @Test
  void proxyMadeWithAConnectionManagerEndsUpOnTheAnnouncedPrimary() {
    TetherServer primary = server("primary");
    TetherServer alternate = server("alternate");
    TetherServer manager = managerAnnouncing(endpoint(primary), endpoint(alternate));

    Proxy p = tether(Tether.builder()).proxy("svc:" + endpoint(manager));
    assertThat(call(p)).isEqualTo("primary");
    assertThat(call(p)).isEqualTo("primary");
    assertThat(p.alternateWasUsed()).isFalse();
    assertThat(served("manager")).isZero();
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                events.stream()
                    .anyMatch(
                        e ->
                            e.kind() == TetherEvent.Kind.REROUTE
                                && e.detail().contains("connection manager")));
  }

  @Test
  void managerDownTheNextConfiguredManagerIsAskedAndItsPrimaryUsed() throws IOException {
    TetherServer primary = server("primary");
    TetherServer alternate = server("alternate");
    TetherServer second = server("second-manager");
    second.setTopology(Topology.of(endpoint(primary), List.of(endpoint(alternate))));

    Proxy p =
        tether(Tether.builder())
            .proxy("svc:" + deadEndpoint() + ":" + endpoint(second))
            .withEndpointSelection(EndpointSelection.ORDERED);
    assertThat(call(p)).isEqualTo("primary");
    assertThat(served("second-manager")).isZero();
  }

  @Test
  void announcedPrimaryDownTheCallFailsOverToTheAlternate() throws IOException {
    TetherServer alternate = server("alternate");
    TetherServer manager = managerAnnouncing(deadEndpoint(), endpoint(alternate));

    Proxy p = tether(Tether.builder()).proxy("svc:" + endpoint(manager));
    assertThat(call(p)).isEqualTo("alternate");
    assertThat(p.alternateWasUsed()).isTrue();
  }

  @Test
  void wholeViewDownTheConfiguredManagerIsAskedAgainAndItsNewerViewFollowed() {
    TetherServer primary = server("primary");
    TetherServer alternate = server("alternate");
    TetherServer manager = managerAnnouncing(endpoint(primary), endpoint(alternate));
    Proxy p = tether(Tether.builder()).proxy("svc:" + endpoint(manager));
    assertThat(call(p)).isEqualTo("primary");

    // The old cluster goes away; the manager now points at a new one.
    TetherServer newPrimary = server("new-primary");
    manager.setTopology(Topology.of(endpoint(newPrimary), List.of()));
    primary.close();
    alternate.close();

    assertThat(call(p)).isEqualTo("new-primary");
    assertThat(served("manager")).isZero();
  }

  @Test
  void viewWhollyUnreachableTheConfiguredServerThatAnsweredIsUsedAfterAskingItOnceMore()
      throws IOException {
    String deadPrimary = deadEndpoint();
    String deadAlternate = deadEndpoint();
    TetherServer manager = managerAnnouncing(deadPrimary, deadAlternate);

    Proxy p = tether(Tether.builder()).proxy("svc:" + endpoint(manager)).withMaxRerouteRetries(1);
    // 1 + 1 rounds over the view, then the configured server again: its view is the same, so it
    // is used rather than no server (one that did not serve "svc" would say so).
    assertThat(call(p)).isEqualTo("manager");
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () -> {
              assertThat(count(TetherEvent.Kind.CONNECT_FAILED, deadPrimary)).isEqualTo(2);
              assertThat(count(TetherEvent.Kind.CONNECTING, endpoint(manager))).isEqualTo(2);
              assertThat(events)
                  .anyMatch(
                      e ->
                          e.kind() == TetherEvent.Kind.REROUTE
                              && e.detail().contains("could be reached"));
            });
  }

  @Test
  void maxRerouteRetriesRoundsOverTheViewWaitTheRerouteIntervalOnTheInjectedClock()
      throws Exception {
    String deadPrimary = deadEndpoint();
    String deadAlternate = deadEndpoint();
    TetherServer manager = managerAnnouncing(deadPrimary, deadAlternate);
    FakeClock clock = new FakeClock();
    Proxy p =
        tether(Tether.builder().ticker(clock).scheduler(clock))
            .proxy("svc:" + endpoint(manager))
            .withMaxRerouteRetries(2)
            .withRerouteRetryInterval(Duration.ofSeconds(10));

    CompletableFuture<byte[]> call = p.invokeAsync("hello", new byte[0]);
    // First round: primary then alternate, once each; the next round waits for the interval.
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> count(TetherEvent.Kind.CONNECT_FAILED, deadAlternate) == 1);
    clock.forward(Duration.ofMillis(9_999));
    assertThat(count(TetherEvent.Kind.CONNECT_FAILED, deadPrimary)).isEqualTo(1);
    clock.forward(Duration.ofMillis(1));
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> count(TetherEvent.Kind.CONNECT_FAILED, deadAlternate) == 2);
    assertThat(call).isNotDone();
    clock.forward(Duration.ofSeconds(10));
    // 1 + maxRerouteRetries rounds over the view, then the manager once more, which is then used.
    assertThat(new String(call.get(5, TimeUnit.SECONDS), StandardCharsets.UTF_8))
        .isEqualTo("manager");
    assertThat(count(TetherEvent.Kind.CONNECT_FAILED, deadPrimary)).isEqualTo(3);
    assertThat(count(TetherEvent.Kind.CONNECT_FAILED, deadAlternate)).isEqualTo(3);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> count(TetherEvent.Kind.CONNECTING, endpoint(manager)) == 2);
  }
}
