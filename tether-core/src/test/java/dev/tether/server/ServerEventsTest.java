package dev.tether.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.observe.ServerStatus;
import dev.tether.observe.TetherEvent;
import dev.tether.observe.TetherEvent.Kind;
import dev.tether.testing.ManualClock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Each server event comes from a real scenario over loopback, a listener that throws changes
 * nothing, and {@code server.status()} follows the server through its lifecycle.
 */
class ServerEventsTest {
  private final List<TetherEvent> events = new CopyOnWriteArrayList<>();

  /** Holds calls to "slow" in the service until a test lets them go. */
  private final CountDownLatch release = new CountDownLatch(1);

  private final CountDownLatch slowStarted = new CountDownLatch(1);
  private final ManualClock clock = new ManualClock(1_000_000_000L);
  private TetherServer server;
  private Tether tether;

  @AfterEach
  void stop() {
    release.countDown();
    if (tether != null) {
      tether.close();
    }
    server.close();
  }

  private void startServer(boolean throwingListenerFirst, boolean fakeClock) {
    TetherServer.Builder b = TetherServer.builder().endpoints("tcp -h 127.0.0.1 -p 0");
    if (throwingListenerFirst) {
      b.listener(
          e -> {
            throw new IllegalStateException("a listener that always throws");
          });
    }
    if (fakeClock) {
      b.scheduler(clock);
    }
    server =
        b.listener(events::add)
            .service(
                "echo",
                (op, payload, ctx) -> {
                  if (op.equals("slow")) {
                    slowStarted.countDown();
                    release.await();
                  }
                  return payload;
                })
            .build()
            .start();
  }

  private Proxy proxy() {
    tether = Tether.create();
    return tether.proxy(server.proxyString("echo"));
  }

  private List<Kind> kinds() {
    return events.stream().map(TetherEvent::kind).toList();
  }

  @Test
  void connectionThatCompletesItsHandshakeIsReportedAcceptedOnTheListeningEndpoint() {
    startServer(false, false);
    proxy().invoke("echo", new byte[0]);

    await().until(this::kinds, k -> k.contains(Kind.ACCEPTED));
    assertThat(events)
        .filteredOn(e -> e.kind() == Kind.ACCEPTED)
        .singleElement()
        .satisfies(e -> assertThat(e.endpoint()).isEqualTo(server.endpoints().get(0).toString()));
  }

  @Test
  void shutdownGracefullyReportsGoAwayOnEachConnectionThenDrained() {
    startServer(false, false);
    proxy().invoke("echo", new byte[0]);

    server.shutdownGracefully(Duration.ofSeconds(10));

    await().until(this::kinds, k -> k.contains(Kind.DRAINED));
    assertThat(kinds()).containsExactly(Kind.ACCEPTED, Kind.GOAWAY_SENT, Kind.DRAINED);
    assertThat(events.get(2).detail()).contains("every connection closed after draining (1)");
  }

  @Test
  void garbageOnARawSocketIsReportedAsAProtocolError() throws IOException {
    startServer(false, false);
    try (RawPeer peer = RawPeer.connect(server.endpoints().get(0).port())) {
      peer.send("GET / HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII)).readUntilClosed();
    }

    await().until(this::kinds, k -> k.contains(Kind.PROTOCOL_ERROR));
    assertThat(events)
        .filteredOn(e -> e.kind() == Kind.PROTOCOL_ERROR)
        .singleElement()
        .satisfies(e -> assertThat(e.cause()).isNotNull());
  }

  @Test
  void aListenerThatThrowsChangesNothingForCallsOrForTheListenersAfterIt() {
    startServer(true, false);
    Proxy p = proxy();

    assertThat(p.invoke("echo", "one".getBytes(StandardCharsets.UTF_8)))
        .asString()
        .isEqualTo("one");
    assertThat(p.invoke("echo", "two".getBytes(StandardCharsets.UTF_8)))
        .asString()
        .isEqualTo("two");
    server.shutdownGracefully(Duration.ofSeconds(10));

    await().until(this::kinds, k -> k.contains(Kind.DRAINED));
    assertThat(kinds()).containsExactly(Kind.ACCEPTED, Kind.GOAWAY_SENT, Kind.DRAINED);
  }

  @Test
  void statusShowsStateConnectionsInFlightAndServedThroughTheLifecycle() throws Exception {
    startServer(false, false);
    Proxy p = proxy();
    assertThat(server.status()).isEqualTo(new ServerStatus("RUNNING", 0, 0, 0));

    p.invoke("echo", new byte[0]);
    p.invoke("echo", new byte[0]);
    CompletableFuture<byte[]> slow = p.invokeAsync("slow", "late".getBytes(StandardCharsets.UTF_8));
    assertThat(slowStarted.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(server.status()).isEqualTo(new ServerStatus("RUNNING", 1, 1, 2));

    CompletableFuture<Void> shutdown =
        CompletableFuture.runAsync(() -> server.shutdownGracefully(Duration.ofSeconds(10)));
    await().until(server::status, s -> s.state().equals("DRAINING"));
    assertThat(server.status()).isEqualTo(new ServerStatus("DRAINING", 1, 1, 2));

    release.countDown();
    assertThat(new String(slow.get(10, TimeUnit.SECONDS), StandardCharsets.UTF_8))
        .isEqualTo("late");
    assertThat(shutdown).succeedsWithin(Duration.ofSeconds(10));
    assertThat(server.status()).isEqualTo(new ServerStatus("CLOSED", 0, 0, 3));
  }

  @Test
  void connectionsStillOpenAtTheGraceDeadlineOfTheSchedulerAreClosed() throws Exception {
    startServer(false, true);
    try (RawPeer stubborn = RawPeer.connect(server.endpoints().get(0).port())) {
      // Welcomed, then deaf to GOAWAY: it never closes on its own.
      stubborn.send(RawPeer.handshake()).readFrames(1);
      CompletableFuture<Void> shutdown =
          CompletableFuture.runAsync(() -> server.shutdownGracefully(Duration.ofSeconds(30)));
      await().until(clock::pendingDelays, p -> p.contains(Duration.ofSeconds(30)));
      assertThat(shutdown).isNotDone();

      clock.forward(Duration.ofSeconds(30));

      assertThat(shutdown).succeedsWithin(Duration.ofSeconds(10));
      stubborn.readUntilClosed();
      assertThat(stubborn.closedByServer()).isTrue();
    }
    await().until(this::kinds, k -> k.contains(Kind.DRAINED));
    assertThat(events).last().satisfies(e -> assertThat(e.detail()).contains("grace deadline"));
  }
}
