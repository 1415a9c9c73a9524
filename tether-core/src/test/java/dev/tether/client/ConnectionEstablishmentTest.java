package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tether.ConnectFailedException;
import dev.tether.ConnectTimeoutException;
import dev.tether.Connection;
import dev.tether.ConnectionLostException;
import dev.tether.ConnectionState;
import dev.tether.EndpointSelection;
import dev.tether.InvocationMode;
import dev.tether.InvocationTimeoutException;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Connection establishment against real servers on loopback: lazy connection, selection, reuse,
 * caching, timeouts, modes.
 */
class ConnectionEstablishmentTest {
  private final List<TetherServer> servers = new ArrayList<>();
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final CountDownLatch release = new CountDownLatch(1);
  private final List<String> received = new CopyOnWriteArrayList<>();

  @AfterEach
  void stop() throws Exception {
    release.countDown();
    for (AutoCloseable c : closeables) {
      c.close();
    }
    for (TetherServer s : servers) {
      s.close();
    }
  }

  private TetherServer server(String name) {
    return server(name, "tcp -h 127.0.0.1 -p 0");
  }

  private TetherServer server(String name, String endpoints) {
    TetherServer s =
        TetherServer.builder()
            .endpoints(endpoints)
            .service(
                "svc",
                (op, payload, ctx) ->
                    switch (op) {
                      case "whoami" -> name.getBytes(StandardCharsets.UTF_8);
                      case "record" -> {
                        received.add(new String(payload, StandardCharsets.UTF_8));
                        yield new byte[0];
                      }
                      case "block" -> {
                        release.await(30, TimeUnit.SECONDS);
                        yield new byte[0];
                      }
                      default -> payload;
                    })
            .build()
            .start();
    servers.add(s);
    return s;
  }

  private Tether tether(String... properties) {
    Tether.Builder b = Tether.builder().random(new Random(7));
    for (int i = 0; i < properties.length; i += 2) {
      b.property(properties[i], properties[i + 1]);
    }
    Tether t = b.build();
    closeables.add(t);
    return t;
  }

  private static String whoami(Proxy p) {
    return new String(p.invoke("whoami", new byte[0]), StandardCharsets.UTF_8);
  }

  private static int port(TetherServer s) {
    return s.endpoints().get(0).port();
  }

  /** A port nobody listens on: bound once, then released. */
  static int deadPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      return s.getLocalPort();
    }
  }

  @Test
  void noConnectionIsOpenedUntilTheFirstCall() {
    TetherServer s = server("a");
    Proxy p = tether().proxy(s.proxyString("svc"));
    assertThat(s.connectionCount()).isZero();
    whoami(p);
    assertThat(s.connectionCount()).isEqualTo(1);
  }

  @Test
  void connectAsyncConnectsEagerly() throws Exception {
    TetherServer s = server("a");
    Proxy p = tether().proxy(s.proxyString("svc"));
    p.connectAsync().get(5, TimeUnit.SECONDS);
    await().atMost(Duration.ofSeconds(5)).until(() -> s.connectionCount() == 1);
    assertThat(p.connection().state()).isEqualTo(ConnectionState.ACTIVE);
  }

  @Test
  void orderedSelectionOverDeadThenLiveConnectsToTheLiveOne() throws IOException {
    TetherServer live = server("live");
    Proxy p =
        tether()
            .proxy("svc:tcp -h 127.0.0.1 -p " + deadPort() + ":tcp -h 127.0.0.1 -p " + port(live))
            .withEndpointSelection(EndpointSelection.ORDERED);
    assertThat(whoami(p)).isEqualTo("live");
    assertThat(((InetSocketAddress) p.connection().remoteAddress()).getPort())
        .isEqualTo(port(live));
  }

  @Test
  void allEndpointsDeadRaisesConnectFailedNamingEveryEndpointTried() throws IOException {
    int a = deadPort();
    int b = deadPort();
    Proxy p = tether().proxy("svc:tcp -h 127.0.0.1 -p " + a + ":tcp -h 127.0.0.1 -p " + b);
    assertThatThrownBy(() -> whoami(p))
        .isInstanceOf(ConnectFailedException.class)
        .hasMessageContaining("-p " + a)
        .hasMessageContaining("-p " + b)
        .hasMessageContaining("2 round(s)");
  }

  @Test
  void retryIntervalsAddRoundsOfAttempts() throws IOException {
    int a = deadPort();
    Proxy p = tether("tether.retry.intervals", "0 10 20").proxy("svc:tcp -h 127.0.0.1 -p " + a);
    assertThatThrownBy(() -> whoami(p))
        .isInstanceOf(ConnectFailedException.class)
        .hasMessageContaining("4 round(s)");
    Proxy once = tether("tether.retry.intervals", "-1").proxy("svc:tcp -h 127.0.0.1 -p " + a);
    assertThatThrownBy(() -> whoami(once))
        .isInstanceOf(ConnectFailedException.class)
        .hasMessageContaining("1 round(s)");
  }

  @Test
  void randomWithCachingOffReachesAllThreeServersWithin60Calls() {
    TetherServer a = server("a");
    TetherServer b = server("b");
    TetherServer c = server("c");
    Proxy p =
        tether()
            .proxy(
                "svc:tcp -h 127.0.0.1 -p "
                    + port(a)
                    + ":tcp -h 127.0.0.1 -p "
                    + port(b)
                    + ":tcp -h 127.0.0.1 -p "
                    + port(c))
            .withConnectionCached(false);
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 60 && seen.size() < 3; i++) {
      seen.add(whoami(p));
    }
    assertThat(seen).containsExactlyInAnyOrder("a", "b", "c");
  }

  @Test
  void randomWithCachingOnSticksToOneServer() {
    TetherServer a = server("a");
    TetherServer b = server("b");
    TetherServer c = server("c");
    Proxy p =
        tether()
            .proxy(
                "svc:tcp -h 127.0.0.1 -p "
                    + port(a)
                    + ":tcp -h 127.0.0.1 -p "
                    + port(b)
                    + ":tcp -h 127.0.0.1 -p "
                    + port(c));
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 60; i++) {
      seen.add(whoami(p));
    }
    assertThat(seen).hasSize(1);
  }

  public interface Pinger {
    byte[] whoami();
  }

  @Test
  void seedsConnectionIdExampleOpensExactlyThreeConnections() {
    TetherServer s = server("a");
    Tether t = tether();
    Proxy prx = t.proxy(s.proxyString("svc"));
    Proxy g1 = prx.withConnectionId("group1");
    Proxy g2 = prx.withConnectionId("group2");
    prx.ping();
    g1.ping();
    g2.ping();
    Pinger i1 = g1.as(Pinger.class);
    i1.whoami();
    Proxy i2 = prx.withConnectionId("group2");
    i2.ping();
    assertThat(s.connectionCount()).isEqualTo(3);
    assertThat(i2.connection().id()).isEqualTo(g2.connection().id());
    assertThat(g1.connection().connectionId()).isEqualTo("group1");
    assertThat(prx.connection().id())
        .isNotEqualTo(g1.connection().id())
        .isNotEqualTo(g2.connection().id());
  }

  @Test
  void connectionsAreNotReusedAcrossDifferentTimeouts() {
    TetherServer s = server("a");
    Tether t = tether();
    Proxy five = t.proxy("svc:tcp -h 127.0.0.1 -p " + port(s) + " -t 5000");
    Proxy six = t.proxy("svc:tcp -h 127.0.0.1 -p " + port(s) + " -t 6000");
    five.ping();
    six.ping();
    assertThat(s.connectionCount()).isEqualTo(2);
    assertThat(five.connection().timeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(six.connection().timeout()).isEqualTo(Duration.ofSeconds(6));
  }

  @Test
  void connectionsAreReusedAcrossDifferentCompression() {
    TetherServer s = server("a");
    Tether t = tether();
    Proxy plain = t.proxy("svc:tcp -h 127.0.0.1 -p " + port(s));
    Proxy zipped = t.proxy("svc:tcp -h 127.0.0.1 -p " + port(s) + " -z").withCompression(true);
    plain.ping();
    zipped.ping();
    assertThat(s.connectionCount()).isEqualTo(1);
    assertThat(zipped.connection().id()).isEqualTo(plain.connection().id());
  }

  @Test
  void overrideTimeoutMakesProxiesWithDifferentTimeoutsShareOneConnection() {
    TetherServer s = server("a");
    Tether t = tether("tether.override.timeout", "4s");
    t.proxy("svc:tcp -h 127.0.0.1 -p " + port(s) + " -t 1000").ping();
    Proxy other = t.proxy("svc:tcp -h 127.0.0.1 -p " + port(s) + " -t 2000");
    other.ping();
    assertThat(s.connectionCount()).isEqualTo(1);
    assertThat(other.connection().timeout()).isEqualTo(Duration.ofSeconds(4));
  }

  @Test
  void fiftyConcurrentFirstCallsOpenOneConnection() throws Exception {
    TetherServer s = server("a");
    Tether t = tether();
    List<CompletableFuture<byte[]>> calls = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      calls.add(t.proxy(s.proxyString("svc")).invokeAsync("whoami", new byte[0]));
    }
    CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
    assertThat(s.connectionCount()).isEqualTo(1);
  }

  @Test
  void multiHomedNameGivesOneConnectionAttemptPerAddress() throws IOException {
    int port = deadPort();
    TetherServer third = server("third", "tcp -h 127.0.0.3 -p " + port);
    Tether t =
        Tether.builder()
            .resolver(
                host ->
                    List.of(
                        InetAddress.getByName("127.0.0.1"),
                        InetAddress.getByName("127.0.0.2"),
                        InetAddress.getByName("127.0.0.3")))
            .property("tether.retry.intervals", "-1")
            .build();
    closeables.add(t);
    Proxy p =
        t.proxy("svc:tcp -h multi.test -p " + port)
            .withEndpointSelection(EndpointSelection.ORDERED);
    assertThat(whoami(p)).isEqualTo("third");
    Connection toThird = p.connection();
    assertThat(((InetSocketAddress) toThird.remoteAddress()).getAddress().getHostAddress())
        .isEqualTo("127.0.0.3");
    third.close();
    servers.remove(third);
    // Until the client has seen the close, the old connection still looks usable and would be
    // reused.
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> t.connection(toThird).state() == ConnectionState.CLOSED);
    Proxy again =
        t.proxy("svc:tcp -h multi.test -p " + port)
            .withEndpointSelection(EndpointSelection.ORDERED);
    // Addresses whose key backs off go last, so the order depends on which streaks ran out.
    assertThatThrownBy(() -> whoami(again))
        .isInstanceOfSatisfying(
            ConnectFailedException.class,
            e -> {
              String tried = e.getMessage().replaceFirst("(?s).*?tried (.*?); last cause.*", "$1");
              assertThat(tried.split(", "))
                  .containsExactlyInAnyOrder(
                      "tcp -h 127.0.0.1 -p " + port,
                      "tcp -h 127.0.0.2 -p " + port,
                      "tcp -h 127.0.0.3 -p " + port);
            });
  }

  @Test
  void callReusingAConnectionStillConnectingWalksTheOtherEndpointsWhenThatConnectFails()
      throws Exception {
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
      TetherServer live = server("live");
      String stuck = "tcp -h 127.0.0.1 -p " + silent.getLocalPort() + " -t 300";
      Tether t = tether("tether.retry.intervals", "-1");
      // One proxy starts the connection to the silent peer; it stays in its handshake for 300 ms.
      CompletableFuture<byte[]> first = t.proxy("svc:" + stuck).invokeAsync("whoami", new byte[0]);
      Proxy both =
          t.proxy(
                  "svc:"
                      + stuck
                      + ":tcp -h 127.0.0.1 -p "
                      + live.endpoints().get(0).port()
                      + " -t 300")
              .withEndpointSelection(EndpointSelection.ORDERED);

      // This call's plan reuses the connecting connection; when it fails, the walk goes on to
      // "live".
      assertThat(whoami(both)).isEqualTo("live");
      assertThat(first).failsWithin(Duration.ofSeconds(5));
    }
  }

  @Test
  void peerThatNeverAnswersTheHandshakeRaisesConnectTimeoutWithinTheTimeout() throws IOException {
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
      Proxy p =
          tether("tether.retry.intervals", "-1")
              .proxy("svc:tcp -h 127.0.0.1 -p " + silent.getLocalPort() + " -t 300");
      long start = System.nanoTime();
      assertThatThrownBy(() -> whoami(p))
          .isInstanceOf(ConnectTimeoutException.class)
          .hasMessageContaining("300 ms");
      long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
      assertThat(elapsedMillis).isBetween(250L, 300L + 2_000L);
    }
  }

  @Test
  void invocationTimeoutLeavesTheConnectionUsable() {
    TetherServer s = server("a");
    Tether t = tether();
    Proxy p = t.proxy(s.proxyString("svc")).withInvocationTimeout(Duration.ofMillis(200));
    Connection before = p.connection();
    assertThatThrownBy(() -> p.invoke("block", new byte[0]))
        .isInstanceOf(InvocationTimeoutException.class);
    // The invocation timeout is not part of the connection's identity: the same connection serves.
    Proxy patient = p.withInvocationTimeout(null);
    assertThat(whoami(patient)).isEqualTo("a");
    assertThat(patient.connection().isSameConnectionAs(before)).isTrue();
    assertThat(t.connection(before).state()).isEqualTo(ConnectionState.ACTIVE);
    assertThat(s.connectionCount()).isEqualTo(1);
  }

  @Test
  void busyConnectionSilentForItsTransportTimeoutIsClosedAndItsCallsFail() {
    TetherServer s = server("a");
    // The handshake gets its own bound: on a loaded machine 300 ms may not cover it, and a failed
    // connect backs off rather than being tried again at once.
    Tether t = tether("tether.override.connectTimeout", "5s");
    Proxy p = t.proxy("svc:tcp -h 127.0.0.1 -p " + port(s) + " -t 300");
    Connection c = p.connection();
    long start = System.nanoTime();
    assertThatThrownBy(() -> p.invoke("block", new byte[0]))
        .isInstanceOfSatisfying(
            ConnectionLostException.class, e -> assertThat(e.mayHaveExecuted()).isTrue())
        .hasMessageContaining("transport timeout");
    // Far below the 60 s invocation timeout, with room for a loaded machine's scheduling (3.4 s
    // seen at load 10).
    assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(300L + 10_000L);
    assertThat(t.connection(c).state()).isEqualTo(ConnectionState.CLOSED);
  }

  @Test
  void onewayCallCompletesOnceWritten() throws Exception {
    TetherServer s = server("a");
    Proxy p = tether().proxy(s.proxyString("svc")).withMode(InvocationMode.ONEWAY);
    p.invokeAsync("record", "one".getBytes(StandardCharsets.UTF_8)).get(5, TimeUnit.SECONDS);
    await().atMost(Duration.ofSeconds(5)).until(() -> received.contains("one"));
  }

  @Test
  void batchOnewayRequestsArriveOnlyAfterFlushBatch() {
    TetherServer s = server("a");
    Proxy twoway = tether().proxy(s.proxyString("svc"));
    Proxy batch = twoway.withMode(InvocationMode.BATCH_ONEWAY);
    for (int i = 0; i < 3; i++) {
      batch.invoke("record", ("b" + i).getBytes(StandardCharsets.UTF_8));
    }
    // A twoway call on the same connection is answered after anything written before it.
    twoway.ping();
    assertThat(batch.connection().id()).isEqualTo(twoway.connection().id());
    assertThat(received).isEmpty();
    batch.flushBatch();
    await().atMost(Duration.ofSeconds(5)).until(() -> received.size() == 3);
    // Service code runs on the server's executor, so the three may finish in any order.
    assertThat(received).containsExactlyInAnyOrder("b0", "b1", "b2");
  }

  @Test
  void batchDatagramRequestsLeaveAsOneDatagramOnFlush() {
    TetherServer s = server("a", "udp -h 127.0.0.1 -p 0");
    Proxy batch = tether().proxy(s.proxyString("svc")).withMode(InvocationMode.BATCH_DATAGRAM);
    await()
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(20))
        .until(
            () -> {
              batch.invoke("record", "x".getBytes(StandardCharsets.UTF_8));
              batch.invoke("record", "y".getBytes(StandardCharsets.UTF_8));
              batch.flushBatch();
              return received.size() >= 2;
            });
    assertThat(List.copyOf(received).subList(0, 2)).containsExactlyInAnyOrder("x", "y");
  }

  @Test
  void connectionShowsWhereItGoesAndHow() {
    TetherServer s = server("a");
    Proxy p =
        tether().proxy("svc:tcp -h 127.0.0.1 -p " + port(s) + " -t 2500").withConnectionId("g");
    Connection c = p.connection();
    assertThat(c.remoteAddress()).isEqualTo(new InetSocketAddress("127.0.0.1", port(s)));
    assertThat(c.connectionId()).isEqualTo("g");
    assertThat(c.timeout()).isEqualTo(Duration.ofMillis(2500));
    assertThat(c.state()).isEqualTo(ConnectionState.ACTIVE);
    assertThat(c.isSecure()).isFalse();
  }

  @Test
  void connectionIsASnapshotThatKeepsWhatItSawWhileTheRuntimeReportsTheClose() {
    TetherServer s = server("a");
    Tether t = tether();
    Proxy p = t.proxy(s.proxyString("svc"));
    Connection seen = p.connection();
    assertThat(seen.endpoint()).isEqualTo(s.endpoints().get(0).toString());
    assertThat(seen.inFlight()).isZero();
    s.close();
    servers.remove(s);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> t.connection(seen).state() == ConnectionState.CLOSED);
    assertThat(seen.state())
        .as("the snapshot does not follow the connection")
        .isEqualTo(ConnectionState.ACTIVE);
    assertThat(t.connection(seen).isSameConnectionAs(seen)).isTrue();
  }

  @Test
  void cachedProxySelectsAgainAfterItsConnectionCloses() {
    TetherServer a = server("a");
    Tether t = tether();
    Proxy p = t.proxy(a.proxyString("svc"));
    Connection first = p.connection();
    dev.tether.LiveConnections.of(t, first).close().syncUninterruptibly();
    assertThat(whoami(p)).isEqualTo("a");
    assertThat(p.connection().isSameConnectionAs(first)).isFalse();
  }
}
