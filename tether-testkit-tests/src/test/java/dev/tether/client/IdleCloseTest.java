package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.observe.TetherEvent;
import dev.tether.testkit.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Idle close (Ice's ACM, {@code tether.connection.idleClose}) with a real server on loopback and
 * the injected clock: a connection without calls closes gracefully, heartbeats or not, and the next
 * call opens a new one.
 */
class IdleCloseTest {
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final List<TetherEvent> events = new CopyOnWriteArrayList<>();
  private final FakeClock clock = new FakeClock();

  @AfterEach
  void stop() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private Proxy proxy(String... properties) {
    TetherServer s =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service("svc", (op, payload, ctx) -> payload)
            .build()
            .start();
    closeables.add(s);
    Tether.Builder b = Tether.builder().ticker(clock).scheduler(clock).listener(events::add);
    for (int i = 0; i < properties.length; i += 2) {
      b.property(properties[i], properties[i + 1]);
    }
    Tether t = b.build();
    closeables.add(t);
    return t.proxy("svc:" + s.endpoints().get(0));
  }

  private long count(TetherEvent.Kind kind) {
    return events.stream().filter(e -> e.kind() == kind).count();
  }

  private boolean closedIdle() {
    return events.stream()
        .anyMatch(
            e ->
                e.kind() == TetherEvent.Kind.CONNECTION_CLOSED
                    && e.detail() != null
                    && e.detail().startsWith("closed idle"));
  }

  /** Moves the clock in steps, as a real one would, so each heartbeat goes out on its own. */
  private void forwardInSteps(Duration total) {
    for (long ms = 0; ms < total.toMillis(); ms += 500) {
      clock.forward(Duration.ofMillis(Math.min(500, total.toMillis() - ms)));
    }
  }

  @Test
  void unusedConnectionClosesAfterTheIdleTimeEvenWithHeartbeatsOn() {
    // Heartbeats every 3 s keep bytes flowing; a peer counts as dead only after an hour of silence.
    Proxy p =
        proxy(
            "tether.connection.idleClose",
            "60s",
            "tether.heartbeat.readerIdle",
            "3s",
            "tether.heartbeat.idleTimeout",
            "1h");
    p.invoke("echo", new byte[0]);

    forwardInSteps(Duration.ofMillis(59_500));
    assertThat(closedIdle()).isFalse();
    clock.forward(Duration.ofMillis(500));
    await().atMost(Duration.ofSeconds(10)).until(this::closedIdle);
  }

  @Test
  void nextCallAfterAnIdleCloseOpensANewConnectionTransparently() {
    Proxy p =
        proxy(
            "tether.connection.idleClose",
            "60s",
            "tether.heartbeat.readerIdle",
            "0",
            "tether.heartbeat.idleTimeout",
            "0");
    p.invoke("echo", new byte[0]);
    clock.forward(Duration.ofSeconds(60));
    await().atMost(Duration.ofSeconds(10)).until(this::closedIdle);

    assertThat(p.invoke("echo", new byte[] {7})).containsExactly(7);
    await().atMost(Duration.ofSeconds(10)).until(() -> count(TetherEvent.Kind.CONNECTED) == 2);
  }

  @Test
  void connectionWithACallInEachIdlePeriodStaysOpen() {
    Proxy p =
        proxy(
            "tether.connection.idleClose",
            "60s",
            "tether.heartbeat.readerIdle",
            "0",
            "tether.heartbeat.idleTimeout",
            "0");
    for (int i = 0; i < 4; i++) {
      p.invoke("echo", new byte[0]);
      clock.forward(Duration.ofSeconds(45));
    }
    p.invoke("echo", new byte[0]);
    assertThat(closedIdle()).isFalse();
    assertThat(count(TetherEvent.Kind.CONNECTING)).isEqualTo(1);
  }

  @Test
  void idleCloseIsOffByDefault() {
    Proxy p = proxy("tether.heartbeat.readerIdle", "0", "tether.heartbeat.idleTimeout", "0");
    p.invoke("echo", new byte[0]);
    clock.forward(Duration.ofHours(1));
    p.invoke("echo", new byte[0]);
    assertThat(closedIdle()).isFalse();
    assertThat(count(TetherEvent.Kind.CONNECTING)).isEqualTo(1);
  }
}
