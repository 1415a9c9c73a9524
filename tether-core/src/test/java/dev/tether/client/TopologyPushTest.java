package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.Connection;
import dev.tether.LiveConnections;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.Topology;
import dev.tether.observe.TetherEvent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Client reroute with a view that changes while clients are connected: {@code setTopology} on a
 * running server reaches them in a TOPOLOGY frame, and the runtime applies it at once, over real
 * loopback.
 */
class TopologyPushTest {
  private final List<TetherServer> servers = new ArrayList<>();
  private final List<TetherEvent> events = new CopyOnWriteArrayList<>();
  private Tether tether;

  @AfterEach
  void stop() {
    if (tether != null) {
      tether.close();
    }
    servers.forEach(TetherServer::close);
  }

  private TetherServer server(String name) {
    TetherServer s =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service("svc", (op, payload, ctx) -> name.getBytes(StandardCharsets.UTF_8))
            .build()
            .start();
    servers.add(s);
    return s;
  }

  private static String whoami(Proxy p) {
    return new String(p.invoke("whoami", new byte[0]), StandardCharsets.UTF_8);
  }

  private List<TetherEvent> events(TetherEvent.Kind kind) {
    return events.stream().filter(e -> e.kind() == kind).toList();
  }

  @Test
  void connectedClientTakesTheServersNewTopologyOverItsOpenConnectionAndTheOldPrimaryMovesIt() {
    TetherServer a = server("A");
    TetherServer b = server("B");
    String ea = a.endpoints().get(0).toString();
    String eb = b.endpoints().get(0).toString();
    a.setTopology(Topology.of(ea, List.of(eb)));
    tether = Tether.builder().random(new Random(3)).listener(events::add).build();
    Proxy p = tether.proxy("svc:" + ea);
    assertThat(whoami(p)).isEqualTo("A");
    Connection toA = p.connection();
    assertThat(LiveConnections.stream(tether, toA).topology())
        .isEqualTo(Topology.of(ea, List.of(eb)));
    // Another connection id must open a connection: under the view (A; B) it goes to A.
    assertThat(whoami(p.withConnectionId("before"))).isEqualTo("A");

    a.setTopology(Topology.of(eb, List.of(ea)));

    // Both connections to A hear of it in a TOPOLOGY frame.
    String announced = "TOPOLOGY announced primary " + eb + ", alternates [" + ea + "]";
    await()
        .until(
            () ->
                events(TetherEvent.Kind.TOPOLOGY_CHANGED).stream()
                        .filter(e -> e.detail().equals(announced))
                        .count()
                    == 2);
    assertThat(events(TetherEvent.Kind.TOPOLOGY_CHANGED))
        .filteredOn(e -> e.detail().equals(announced))
        .allSatisfy(e -> assertThat(e.endpoint()).isEqualTo(ea));
    // The next call that opens a connection follows the new order, B first, once the runtime
    // applied the view on its control executor (each try opens a connection of its own).
    java.util.concurrent.atomic.AtomicInteger tries =
        new java.util.concurrent.atomic.AtomicInteger();
    await().until(() -> whoami(p.withConnectionId("after-" + tries.incrementAndGet())).equals("B"));
    // A, no longer the primary, moves its clients on as an aged connection (after the view).
    await()
        .untilAsserted(
            () ->
                assertThat(events(TetherEvent.Kind.CONNECTION_AGED))
                    .anySatisfy(
                        e ->
                            assertThat(e.detail())
                                .contains("this server is no longer the primary")));
    assertThat(whoami(p)).isEqualTo("B");
    assertThat(p.alternateWasUsed()).isFalse();
  }

  @Test
  void proxyMadeWithAnAlternatesAddressUsesThePrimaryFromItsFirstCall() {
    TetherServer a = server("A");
    TetherServer b = server("B");
    String ea = a.endpoints().get(0).toString();
    String eb = b.endpoints().get(0).toString();
    for (TetherServer s : servers) {
      s.setTopology(Topology.of(eb, List.of(ea)));
    }
    tether = Tether.builder().listener(events::add).build();
    Proxy p = tether.proxy("svc:" + ea);

    assertThat(whoami(p)).isEqualTo("B");
    assertThat(whoami(p)).isEqualTo("B");
    assertThat(p.alternateWasUsed()).isFalse();
    assertThat(events(TetherEvent.Kind.REROUTE))
        .anySatisfy(e -> assertThat(e.detail()).contains("is an alternate of its view"));
  }

  @Test
  void primaryDownAProxyMadeWithAnAlternatesAddressStaysOnTheAlternate() throws Exception {
    TetherServer a = server("A");
    String ea = a.endpoints().get(0).toString();
    String dead;
    try (java.net.ServerSocket s =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      dead = "tcp -h 127.0.0.1 -p " + s.getLocalPort();
    }
    a.setTopology(Topology.of(dead, List.of(ea)));
    tether = Tether.builder().build();
    Proxy p = tether.proxy("svc:" + ea);

    assertThat(whoami(p)).isEqualTo("A");
    assertThat(whoami(p)).isEqualTo("A");
    assertThat(p.alternateWasUsed()).isTrue();
  }

  @Test
  void changeOfPrimaryUnderLoadMovesNewCallsWithNoneFailedAndEndsSessionsOnTheOldPrimaryOnce()
      throws Exception {
    TetherServer a = server("A");
    TetherServer b = server("B");
    String ea = a.endpoints().get(0).toString();
    String eb = b.endpoints().get(0).toString();
    for (TetherServer s : servers) {
      s.setTopology(Topology.of(ea, List.of(eb)));
    }
    tether = Tether.builder().build();
    Proxy p = tether.proxy("svc:" + ea);
    Proxy session = p.withSession("cart-7");
    assertThat(whoami(p)).isEqualTo("A");
    assertThat(whoami(session)).isEqualTo("A");
    java.util.concurrent.atomic.AtomicBoolean moved =
        new java.util.concurrent.atomic.AtomicBoolean();
    java.util.concurrent.atomic.AtomicInteger onBAfterMove =
        new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.ExecutorService callers =
        java.util.concurrent.Executors.newFixedThreadPool(4);
    try {
      List<java.util.concurrent.Future<Integer>> done = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        done.add(
            callers.submit(
                () -> {
                  int calls = 0;
                  // Bounded: until the move was seen on B a hundred times, at most 20,000 calls
                  // each.
                  while (calls < 20_000 && onBAfterMove.get() < 100) {
                    String who =
                        whoami(p); // raw calls are not idempotent: any failure would surface here
                    calls++;
                    if (moved.get() && who.equals("B")) {
                      onBAfterMove.incrementAndGet();
                    }
                  }
                  return calls;
                }));
      }
      await()
          .until(
              () -> tether.status().connections().stream().mapToLong(c -> c.callsOk()).sum() > 200);
      for (TetherServer s : servers) {
        s.setTopology(Topology.of(eb, List.of(ea)));
      }
      moved.set(true);
      for (java.util.concurrent.Future<Integer> f : done) {
        f.get(30, java.util.concurrent.TimeUnit.SECONDS);
      }
    } finally {
      callers.shutdownNow();
    }

    assertThat(onBAfterMove.get()).isGreaterThanOrEqualTo(100);
    assertThat(whoami(p)).isEqualTo("B");
    // The session keeps its connection to A until that connection ends, which A, no longer the
    // primary, does gracefully: the session's next call there is lost, and later ones run on B.
    await()
        .untilAsserted(
            () ->
                org.assertj.core.api.Assertions.assertThatThrownBy(() -> whoami(session))
                    .isInstanceOf(dev.tether.SessionLostException.class));
    assertThat(whoami(session)).isEqualTo("B");
  }

  @Test
  void clusterViewThatIsNotEndpointGrammarFailsTheConnectAsAProtocolError() throws Exception {
    try (ScriptedServer bad =
        new ScriptedServer(
            new dev.tether.protocol.Welcome("bad", "1.0", 0, 1 << 20, 100, "tcp -h", List.of()),
            r -> null)) {
      tether = Tether.builder().build();
      Proxy p = tether.proxy("svc:tcp -h 127.0.0.1 -p " + bad.port());

      org.assertj.core.api.Assertions.assertThatThrownBy(() -> whoami(p))
          .isInstanceOf(dev.tether.ConnectFailedException.class)
          .hasMessageContaining("WELCOME: cluster view is not in endpoint grammar");
      assertThat(bad.requestsSeen()).isZero();
    }
  }

  @Test
  void serverThatAnnouncesTheSameViewAgainSendsNothingNew() {
    TetherServer a = server("A");
    String ea = a.endpoints().get(0).toString();
    a.setTopology(Topology.of(ea, List.of()));
    tether = Tether.builder().listener(events::add).build();
    Proxy p = tether.proxy("svc:" + ea);
    whoami(p);

    a.setTopology(Topology.of(ea, List.of()));
    a.setTopology(Topology.of(ea, List.of("tcp -h 127.0.0.1 -p 9")));

    await().until(() -> events(TetherEvent.Kind.TOPOLOGY_CHANGED).size() == 2);
    assertThat(events(TetherEvent.Kind.TOPOLOGY_CHANGED))
        .extracting(TetherEvent::detail)
        .containsExactly(
            "WELCOME announced primary " + ea + ", alternates []",
            "TOPOLOGY announced primary " + ea + ", alternates [tcp -h 127.0.0.1 -p 9]");
  }
}
