package dev.tether.admin;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The admin port's bounds over real loopback sockets: a cap on open connections that leaves the
 * service answering, an idle timeout, and a deadline for a request's head that drops a client
 * trickling it (slowloris).
 */
class AdminBoundsTest {
  private ObservedEcho page;
  private final List<RawHttp> sockets = new ArrayList<>();

  @AfterEach
  void stop() throws IOException {
    for (RawHttp s : sockets) {
      s.close();
    }
    page.close();
  }

  private RawHttp open() throws IOException {
    RawHttp s = new RawHttp(page.admin);
    sockets.add(s);
    return s;
  }

  private String host() {
    return "127.0.0.1:" + page.admin.address().getPort();
  }

  @Test
  void idleConnectionsBeyondTheCapAreTurnedAwayAndCallsAreStillAnswered() throws Exception {
    page = new ObservedEcho(UnaryOperator.identity(), b -> b.maxConnections(8));
    for (int i = 0; i < 8; i++) {
      open();
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> page.admin.openConnections() == 8);

    for (int i = 0; i < 12; i++) {
      RawHttp turnedAway = open();
      assertThat(turnedAway.read().statusLine()).isEqualTo("HTTP/1.1 503 Service Unavailable");
      assertThat(turnedAway.closedByServer()).isTrue();
    }
    assertThat(page.admin.openConnections()).isEqualTo(8);
    byte[] answer =
        page.echo.withConnectionId("fresh").invoke("echo", "still here".getBytes(UTF_8));
    assertThat(new String(answer, UTF_8)).isEqualTo("still here");

    for (RawHttp s : sockets) {
      s.close();
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> page.admin.openConnections() == 0);
    assertThat(page.get("status.json").statusCode()).isEqualTo(200);
  }

  @Test
  void slowlorisClientIsDroppedByTheHeaderDeadline() throws Exception {
    page =
        new ObservedEcho(
            UnaryOperator.identity(),
            b -> b.headerDeadline(Duration.ofMillis(500)).idleTimeout(Duration.ofMinutes(1)));
    RawHttp slow = open().send("GET /status.json HTTP/1.1\r\nHost: " + host() + "\r\n");
    ScheduledExecutorService trickle = Executors.newSingleThreadScheduledExecutor();
    try {
      // A header line every 100 ms: never idle, never finished.
      trickle.scheduleAtFixedRate(
          () -> {
            try {
              slow.send("X-Slow: a\r\n");
            } catch (IOException closed) {
              throw new IllegalStateException(closed);
            }
          },
          100,
          100,
          TimeUnit.MILLISECONDS);

      assertThat(slow.read().statusLine()).isEqualTo("HTTP/1.1 408 Request Timeout");
      assertThat(slow.closedByServer()).isTrue();
    } finally {
      trickle.shutdownNow();
    }
    assertThat(page.get("status.json").statusCode()).isEqualTo(200);
  }

  @Test
  void requestsThatArriveWholeAreNotTouchedByTheHeaderDeadline() throws Exception {
    page =
        new ObservedEcho(UnaryOperator.identity(), b -> b.headerDeadline(Duration.ofMillis(300)));
    RawHttp client = open();

    for (int i = 0; i < 3; i++) {
      assertThat(client.send(RawHttp.get("/status.json", host())).read().statusLine())
          .isEqualTo("HTTP/1.1 200 OK");
    }
    await()
        .during(Duration.ofMillis(600))
        .atMost(Duration.ofSeconds(5))
        .until(() -> page.admin.openConnections() == 1);
    assertThat(client.send(RawHttp.get("/status.json", host())).read().statusLine())
        .isEqualTo("HTTP/1.1 200 OK");
  }

  @Test
  void anOpenPagesEventStreamOutlivesTheIdleTimeout() throws Exception {
    page = new ObservedEcho(UnaryOperator.identity(), b -> b.idleTimeout(Duration.ofMillis(300)));
    RawHttp stream = open().send(RawHttp.get("/events", host()));

    assertThat(stream.nextLine()).isEqualTo("HTTP/1.1 200 OK");
    // Updates come every 500 ms: four of them span well over the 300 ms idle timeout.
    int updates = 0;
    while (updates < 4) {
      if (stream.nextLine().equals("event: update")) {
        updates++;
      }
    }
    assertThat(page.admin.openStreams()).isEqualTo(1);
  }

  @Test
  void connectionSilentForTheIdleTimeoutIsClosed() throws Exception {
    // Runs from the server's accept: a client held up between its connect and its request (a
    // pause of this JVM lands there, and on resuming the server's timer may run before the write)
    // must not lose a race 300 ms left little room for.
    page = new ObservedEcho(UnaryOperator.identity(), b -> b.idleTimeout(Duration.ofSeconds(1)));
    RawHttp silent = open();
    RawHttp afterOneRequest = open();
    assertThat(afterOneRequest.send(RawHttp.get("/", host())).read().statusLine())
        .isEqualTo("HTTP/1.1 200 OK");

    assertThat(silent.closedByServer()).isTrue();
    assertThat(afterOneRequest.closedByServer()).isTrue();
    await().atMost(Duration.ofSeconds(10)).until(() -> page.admin.openConnections() == 0);
  }
}
