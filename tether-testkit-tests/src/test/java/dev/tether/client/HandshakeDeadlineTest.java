package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tether.ConnectTimeoutException;
import dev.tether.Tether;
import dev.tether.observe.TetherEvent;
import dev.tether.testkit.FakeClock;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A server that accepts the connection and then says nothing (frozen, overloaded) must not hold a
 * connection attempt forever: without a connect timeout on the endpoint, the client gives up on the
 * handshake after {@code tether.connection.handshakeTimeout}, on the injected clock.
 */
class HandshakeDeadlineTest {
  private final List<TetherEvent> events = new CopyOnWriteArrayList<>();
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private int silentServer() throws IOException {
    SilentServer server = new SilentServer();
    closeables.add(server);
    return server.port();
  }

  @Test
  void serverThatAcceptsButNeverAnswersFailsTheConnectAtTheHandshakeDeadline() throws Exception {
    int port = silentServer();
    FakeClock clock = new FakeClock();
    Tether t =
        Tether.builder()
            .ticker(clock)
            .scheduler(clock)
            .listener(events::add)
            .property("tether.retry.intervals", "-1")
            .property("tether.heartbeat.readerIdle", "0")
            .property("tether.heartbeat.idleTimeout", "0")
            .build();
    closeables.add(t);

    CompletableFuture<byte[]> call =
        t.proxy("svc:tcp -h 127.0.0.1 -p " + port).invokeAsync("op", new byte[0]);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> clock.pendingDelays().contains(Duration.ofSeconds(10)));
    clock.forward(Duration.ofMillis(9_999));
    assertThat(call).isNotDone();
    clock.forward(Duration.ofMillis(1));

    assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS))
        .hasCauseInstanceOf(ConnectTimeoutException.class)
        .hasMessageContaining("no handshake")
        .hasMessageContaining("10000 ms");
  }
}
