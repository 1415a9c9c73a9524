package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.EndpointSelection;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.observe.TetherEvent;
import dev.tether.testkit.FakeClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An endpoint whose connection broke waits for its supervisor's background reconnect: calls of a
 * per-request balanced proxy go to the healthy endpoints first instead of each dialling the dead
 * one again, and come back to it once the reconnect (on the injected clock) succeeds.
 */
class BackingOffEndpointTest {
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final List<TetherEvent> events = new CopyOnWriteArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private TetherServer server(String name, int port) {
    TetherServer s =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p " + port)
            .service("svc", (op, payload, ctx) -> name.getBytes(StandardCharsets.UTF_8))
            .build()
            .start();
    closeables.add(s);
    return s;
  }

  private long connecting(String endpoint) {
    return events.stream()
        .filter(e -> e.kind() == TetherEvent.Kind.CONNECTING && endpoint.equals(e.endpoint()))
        .count();
  }

  private static String call(Proxy p) {
    return new String(p.invoke("hello", new byte[0]), StandardCharsets.UTF_8);
  }

  @Test
  void brokenEndpointIsTriedLastWhileItsReconnectBacksOffAndFirstAgainOnceItIsBack() {
    TetherServer a = server("a", 0);
    TetherServer b = server("b", 0);
    String endpointA = a.endpoints().get(0).toString();
    int portA = a.endpoints().get(0).port();
    FakeClock clock = new FakeClock();
    Tether t =
        Tether.builder()
            .ticker(clock)
            .scheduler(clock)
            .listener(events::add)
            .property("tether.heartbeat.readerIdle", "0")
            .property("tether.heartbeat.idleTimeout", "0")
            .build();
    closeables.add(t);
    Proxy p =
        t.proxy("svc:" + endpointA + ":" + b.endpoints().get(0))
            .withEndpointSelection(EndpointSelection.ORDERED)
            .withConnectionCached(false);
    assertThat(call(p)).isEqualTo("a");

    a.close();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                events.stream()
                    .anyMatch(
                        e ->
                            e.kind() == TetherEvent.Kind.CONNECTION_CLOSED
                                && endpointA.equals(e.endpoint())));
    await().atMost(Duration.ofSeconds(10)).until(() -> call(p).equals("b"));
    long dialled = connecting(endpointA);
    for (int i = 0; i < 20; i++) {
      assertThat(call(p)).isEqualTo("b");
    }
    assertThat(connecting(endpointA))
        .as("no call dialled the broken endpoint again")
        .isEqualTo(dialled);

    server("a", portA);
    clock.forward(Duration.ofSeconds(1)); // past the first backoff delay: the reconnect runs
    await().atMost(Duration.ofSeconds(10)).until(() -> call(p).equals("a"));
  }
}
