package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tether.Connection;
import dev.tether.ConnectionState;
import dev.tether.Proxy;
import dev.tether.RequestTooLargeException;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.observe.TetherEvent;
import dev.tether.testkit.Direction;
import dev.tether.testkit.FakeClock;
import dev.tether.testkit.FaultProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The client honours what a real server announces in WELCOME: its heartbeat interval (the server's
 * reader idle) and its maximum frame size.
 */
class ServerAnnouncedLimitsTest {
  private static final Duration WAIT = Duration.ofSeconds(10);

  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final List<TetherEvent> events = new CopyOnWriteArrayList<>();
  private final AtomicInteger executions = new AtomicInteger();

  @AfterEach
  void stop() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private <T extends AutoCloseable> T closeLater(T c) {
    closeables.add(c);
    return c;
  }

  private TetherServer.Builder serverBuilder() {
    return TetherServer.builder()
        .endpoints("tcp -h 127.0.0.1 -p 0")
        .service(
            "svc",
            (op, payload, ctx) -> {
              executions.incrementAndGet();
              return payload;
            });
  }

  @Test
  void
      idleConnectionStaysOpenAcrossSeveralReaderIdlesOfAServerWhoseReaderIdleIsShorterThanTheClientHeartbeat() {
    FakeClock clock = new FakeClock();
    TetherServer server =
        closeLater(
            serverBuilder()
                .property("tether.server.readerIdle", "2s")
                .ticker(clock)
                .scheduler(clock)
                .build()
                .start());
    FaultProxy fp = closeLater(FaultProxy.start("127.0.0.1", server.endpoints().get(0).port()));
    Tether tether =
        closeLater(
            Tether.builder()
                .ticker(clock)
                .scheduler(clock)
                .property("tether.heartbeat.readerIdle", "3s")
                .property("tether.heartbeat.idleTimeout", "10s")
                .listener(events::add)
                .build());
    Proxy p = tether.proxy("svc:" + fp.endpoint());
    p.ping();
    Connection before = p.connection();

    // Four of the server's reader idles. The client must write within every half of the
    // server's 2 s, so each step of 1 s brings a PING, whose PONG shows the server read it.
    for (int second = 1; second <= 8; second++) {
      long answered = fp.bytesForwarded(Direction.SERVER_TO_CLIENT);
      clock.forward(Duration.ofSeconds(1));
      await("a PONG for the ping due at second " + second)
          .atMost(WAIT)
          .until(() -> fp.bytesForwarded(Direction.SERVER_TO_CLIENT) > answered);
    }

    assertThat(tether.connection(before).state()).isEqualTo(ConnectionState.ACTIVE);
    p.ping();
    assertThat(p.connection().isSameConnectionAs(before)).isTrue();
    assertThat(fp.acceptedConnections()).isEqualTo(1);
    assertThat(events)
        .noneMatch(
            e ->
                e.kind() == TetherEvent.Kind.GOAWAY_RECEIVED
                    || e.kind() == TetherEvent.Kind.CONNECTION_CLOSED);
  }

  @Test
  void requestOverTheServersMaxFrameSizeFailsBeforeItIsWrittenAndTheConnectionStaysUp() {
    TetherServer server = closeLater(serverBuilder().maxFrameSize(64 * 1024).build().start());
    Tether tether = closeLater(Tether.builder().listener(events::add).build());
    Proxy p = tether.proxy(server.proxyString("svc"));
    p.ping();
    Connection before = p.connection();

    assertThatThrownBy(() -> p.invoke("echo", new byte[100 * 1024]))
        .isInstanceOf(RequestTooLargeException.class)
        .hasMessageContaining("echo of svc")
        .hasMessageContaining("over the 65536 bytes")
        .hasMessageContaining("not sent");

    assertThat(p.invoke("echo", new byte[60 * 1024])).hasSize(60 * 1024);
    assertThat(p.connection().isSameConnectionAs(before)).isTrue();
    assertThat(tether.connection(before).state()).isEqualTo(ConnectionState.ACTIVE);
    assertThat(executions).hasValue(1);
    assertThat(tether.status().retries()).isZero();
  }
}
