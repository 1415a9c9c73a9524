package dev.tether.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tether.ConnectFailedException;
import dev.tether.EndpointSelection;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.observe.TetherEvent;
import dev.tether.protocol.Frame;
import dev.tether.protocol.GoAway;
import dev.tether.protocol.GoAwayReason;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The server's resource limits, hit by real clients over loopback: the in-flight limit per
 * connection answers REFUSED, and {@code maxConnections} turns the next connection away with a
 * GOAWAY its client names.
 */
class ServerLimitsTest {
  private final List<AutoCloseable> open = new ArrayList<>();
  private final CountDownLatch release = new CountDownLatch(1);

  /** Executions by request payload. */
  private final Map<String, AtomicInteger> executions = new ConcurrentHashMap<>();

  private final List<TetherEvent> serverEvents = new CopyOnWriteArrayList<>();

  @AfterEach
  void stop() throws Exception {
    release.countDown();
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
  }

  private TetherServer server(String name, TetherServer.Builder limits) {
    TetherServer s =
        limits
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .listener(serverEvents::add)
            .service(
                "svc",
                (op, payload, ctx) -> {
                  executions
                      .computeIfAbsent(
                          new String(payload, StandardCharsets.UTF_8), k -> new AtomicInteger())
                      .incrementAndGet();
                  if (op.equals("hold")) {
                    release.await(30, TimeUnit.SECONDS);
                  }
                  return name.getBytes(StandardCharsets.UTF_8);
                })
            .build()
            .start();
    open.add(s);
    return s;
  }

  private Tether tether() {
    Tether t = Tether.builder().build();
    open.add(t);
    return t;
  }

  private static byte[] text(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private int executed(String payload) {
    AtomicInteger n = executions.get(payload);
    return n == null ? 0 : n.get();
  }

  @Test
  void tetherClientHoldsACallPastTheAnnouncedLimitUnsentUntilASlotFreesAndItRunsOnce() {
    // The server refuses what passes its limit (ServerConnectionTest shows it frame by frame); a
    // Tether client, told the limit in WELCOME and allowed no extra connection, never sends it.
    TetherServer s = server("S", TetherServer.builder().maxConcurrentRequests(2));
    Tether t = Tether.builder().property("tether.connection.maxExtra", "0").build();
    open.add(t);
    Proxy p = t.proxy(s.proxyString("svc"));
    CompletableFuture<byte[]> first = p.invokeAsync("hold", text("1"));
    CompletableFuture<byte[]> second = p.invokeAsync("hold", text("2"));
    await().until(() -> executed("1") == 1 && executed("2") == 1);

    CompletableFuture<byte[]> third = p.invokeAsync("hold", text("3"));
    await().until(() -> t.status().connections().get(0).inFlight() == 2 && !third.isDone());
    assertThat(executed("3")).as("held in the client, not sent").isZero();
    release.countDown();

    assertThat(first.join()).isEqualTo(text("S"));
    assertThat(second.join()).isEqualTo(text("S"));
    assertThat(third.join()).isEqualTo(text("S"));
    assertThat(executed("1") + executed("2") + executed("3")).isEqualTo(3);
    assertThat(t.status().connections()).hasSize(1);
  }

  @Test
  void connectionBeyondMaxConnectionsFailsWithAMessageNamingTheLimit() {
    TetherServer s = server("S", TetherServer.builder().maxConnections(1));
    Proxy p = tether().proxy(s.proxyString("svc"));
    assertThat(p.invoke("get", text("a"))).isEqualTo(text("S"));

    assertThatThrownBy(() -> p.withConnectionId("second").invoke("get", text("b")))
        .isInstanceOf(ConnectFailedException.class)
        .hasMessageContaining("GOAWAY(TOO_MANY_CONNECTIONS)")
        .hasMessageContaining(
            "too many connections: the server serves at most 1 (tether.server.maxConnections)");
    assertThat(executed("b")).isZero();
    await()
        .until(
            () ->
                serverEvents.stream()
                    .anyMatch(
                        e ->
                            e.kind() == TetherEvent.Kind.GOAWAY_SENT
                                && e.detail().startsWith("too many connections")));
    assertThat(s.connectionCount()).as("the refused connection is not counted").isEqualTo(1);
  }

  @Test
  void fullServerCountsAsAConnectFailureAndTheNextEndpointIsTried() {
    TetherServer full =
        server("full", TetherServer.builder().property("tether.server.maxConnections", "1"));
    TetherServer other = server("other", TetherServer.builder());
    Tether t = tether();
    t.proxy(full.proxyString("svc")).invoke("get", text("occupy"));

    Proxy p =
        t.proxy("svc:" + full.endpoints().get(0) + ":" + other.endpoints().get(0))
            .withEndpointSelection(EndpointSelection.ORDERED)
            .withConnectionId("second");

    assertThat(p.invoke("get", text("x"))).isEqualTo(text("other"));
    assertThat(executed("x")).isEqualTo(1);
  }

  @Test
  void refusedConnectionIsAdmittedOnceASlotFrees() {
    TetherServer s = server("S", TetherServer.builder().maxConnections(1));
    Tether first = Tether.builder().build();
    first.proxy(s.proxyString("svc")).invoke("get", text("a"));
    Proxy p = tether().proxy(s.proxyString("svc"));
    assertThatThrownBy(() -> p.invoke("get", text("b"))).isInstanceOf(ConnectFailedException.class);

    first.close();

    // The refused key backs off; its next attempt, or the next call once it went idle, gets the
    // freed slot.
    await()
        .ignoreExceptions()
        .until(() -> java.util.Arrays.equals(p.invoke("get", text("c")), text("S")));
  }

  @Test
  void clientOfProtocol10IsRefusedWithShutdownAndClientOf11WithTooManyConnections()
      throws IOException {
    TetherServer s = server("S", TetherServer.builder().maxConnections(1));
    int port = s.endpoints().get(0).port();
    try (RawPeer served = RawPeer.connect(port)) {
      served.send(RawPeer.handshake()).readFrames(1);
      for (int minor : new int[] {0, 1}) {
        try (RawPeer refused = RawPeer.connect(port)) {
          // The server waits for the client to close (at most its handshake deadline), so read one
          // frame.
          List<Frame> frames = refused.send(RawPeer.handshake(minor)).readFrames(1);
          assertThat(frames)
              .singleElement()
              .isInstanceOfSatisfying(
                  GoAway.class,
                  g -> {
                    assertThat(g.reason())
                        .isEqualTo(
                            minor == 0 ? GoAwayReason.SHUTDOWN : GoAwayReason.TOO_MANY_CONNECTIONS);
                    assertThat(g.lastAcceptedId()).isZero();
                    assertThat(g.message()).startsWith("too many connections");
                  });
        }
      }
    }
  }
}
