package dev.tether;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.observe.TetherEvent;
import dev.tether.observe.TetherListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Listeners added and removed while a runtime or server runs see exactly the events emitted
 * between, over real loopback connections. The same event object reaches every listener, so a
 * window listener's events are compared by identity with those of one that saw everything.
 */
class RuntimeListenersTest {
  private final List<AutoCloseable> closing = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (int i = closing.size() - 1; i >= 0; i--) {
      closing.get(i).close();
    }
  }

  private TetherServer echoServer() {
    TetherServer s =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service("echo", (op, payload, ctx) -> payload)
            .build()
            .start();
    closing.add(s);
    return s;
  }

  private Tether client() {
    Tether t = Tether.create();
    closing.add(t);
    return t;
  }

  @Test
  void listenerAddedAndRemovedWhileTheRuntimeRunsSeesExactlyTheEventsBetween() {
    TetherServer before = echoServer();
    TetherServer during = echoServer();
    TetherServer after = echoServer();
    Tether tether = client(); // built without any listener
    Recorder all = new Recorder();
    Recorder window = new Recorder();

    tether.addListener(all);
    call(tether, before);
    tether.addListener(window);
    call(tether, during);
    assertThat(tether.removeListener(window)).isTrue();
    call(tether, after);
    String last = endpointOf(after);
    await().atMost(Duration.ofSeconds(5)).until(() -> all.sawConnected(last));

    List<TetherEvent> between = all.about(endpointOf(during));
    assertThat(between)
        .extracting(TetherEvent::kind)
        .containsExactly(TetherEvent.Kind.CONNECTING, TetherEvent.Kind.CONNECTED);
    assertThat(window.events)
        .containsExactlyElementsOf(between); // the same instances, nothing else
    assertThat(all.about(endpointOf(before))).isNotEmpty();
    assertThat(all.about(last)).isNotEmpty();
    assertThat(tether.removeListener(window)).as("a second removal finds nothing").isFalse();
  }

  @Test
  void listenerAddedAndRemovedWhileTheServerRunsSeesExactlyTheEventsBetween() {
    TetherServer server = echoServer(); // built without any listener
    Recorder all = new Recorder();
    Recorder window = new Recorder();

    server.addListener(all);
    call(client(), server);
    server.addListener(window);
    call(client(), server);
    assertThat(server.removeListener(window)).isTrue();
    call(client(), server);
    await().atMost(Duration.ofSeconds(5)).until(() -> all.count(TetherEvent.Kind.ACCEPTED) == 3);

    List<TetherEvent> accepted =
        all.events.stream().filter(e -> e.kind() == TetherEvent.Kind.ACCEPTED).toList();
    assertThat(window.events).containsExactly(accepted.get(1));
  }

  private static void call(Tether tether, TetherServer server) {
    byte[] answer = tether.proxy(server.proxyString("echo")).invoke("echo", "hi".getBytes(UTF_8));
    assertThat(new String(answer, UTF_8)).isEqualTo("hi");
  }

  private static String endpointOf(TetherServer server) {
    return server.endpoints().get(0).toString();
  }

  /** Keeps every event it is given, in order. */
  private static final class Recorder implements TetherListener {
    final List<TetherEvent> events = new CopyOnWriteArrayList<>();

    @Override
    public void onEvent(TetherEvent event) {
      events.add(event);
    }

    List<TetherEvent> about(String endpoint) {
      return events.stream().filter(e -> endpoint.equals(e.endpoint())).toList();
    }

    boolean sawConnected(String endpoint) {
      return about(endpoint).stream().anyMatch(e -> e.kind() == TetherEvent.Kind.CONNECTED);
    }

    long count(TetherEvent.Kind kind) {
      return events.stream().filter(e -> e.kind() == kind).count();
    }
  }
}
