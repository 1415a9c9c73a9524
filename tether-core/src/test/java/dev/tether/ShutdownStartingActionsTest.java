package dev.tether;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.observe.TetherEvent;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * TetherServer.onShutdownStarting: the hook a registry uses to withdraw a server before its drain.
 */
class ShutdownStartingActionsTest {
  private final List<String> happened = new CopyOnWriteArrayList<>();

  private TetherServer server() {
    return TetherServer.builder()
        .endpoints("tcp -h 127.0.0.1 -p 0")
        .service("echo", (operation, payload, context) -> payload)
        .listener(
            event -> {
              if (event.kind() == TetherEvent.Kind.GOAWAY_SENT) {
                happened.add("GOAWAY_SENT");
              }
            })
        .build()
        .start();
  }

  @Test
  void actionsRunOnceInOrderBeforeGoawayIsSent() {
    TetherServer server = server();
    server.onShutdownStarting(() -> happened.add("first"));
    server.onShutdownStarting(() -> happened.add("second"));
    try (Tether tether = Tether.create()) {
      tether.proxy(server.proxyString("echo")).invoke("echo", new byte[0]);
      server.shutdownGracefully(Duration.ofSeconds(5));
      server.shutdownGracefully(Duration.ofSeconds(5));
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> happened.contains("GOAWAY_SENT"));
    assertThat(happened).containsExactly("first", "second", "GOAWAY_SENT");
  }

  @Test
  void aThrowingActionNeitherStopsTheShutdownNorTheOtherActions() {
    TetherServer server = server();
    AtomicInteger ran = new AtomicInteger();
    server.onShutdownStarting(
        () -> {
          throw new IllegalStateException("registry unreachable");
        });
    server.onShutdownStarting(ran::incrementAndGet);
    server.shutdownGracefully(Duration.ofSeconds(5));
    assertThat(ran).hasValue(1);
    assertThat(server.status().state()).isEqualTo("CLOSED");
  }

  @Test
  void closeRunsNoAction() {
    TetherServer server = server();
    server.onShutdownStarting(() -> happened.add("action"));
    server.close();
    assertThat(happened).isEmpty();
  }
}
