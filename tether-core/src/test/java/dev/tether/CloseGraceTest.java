package dev.tether;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code Tether.close()} drains: a pending call gets its answer within {@code tether.close.grace}.
 */
class CloseGraceTest {
  private final CountDownLatch release = new CountDownLatch(1);
  private final AtomicInteger started = new AtomicInteger();
  private final TetherServer server =
      TetherServer.builder()
          .endpoints("tcp -h 127.0.0.1 -p 0")
          .service(
              "svc",
              (op, payload, ctx) -> {
                started.incrementAndGet();
                release.await(30, TimeUnit.SECONDS);
                return "done".getBytes(StandardCharsets.UTF_8);
              })
          .build()
          .start();

  @AfterEach
  void stop() {
    release.countDown();
    server.close();
  }

  @Test
  void closeWithACallPendingLetsItFinishWithinTheGrace() throws Exception {
    Tether tether = Tether.builder().property("tether.close.grace", "10s").build();
    Proxy p = tether.proxy(server.proxyString("svc"));
    Connection c = p.connection();
    CompletableFuture<byte[]> call = p.invokeAsync("hold", new byte[0]);
    await().atMost(Duration.ofSeconds(10)).until(() -> started.get() == 1);

    CompletableFuture<Void> closed = CompletableFuture.runAsync(tether::close);
    // Draining: no new calls, the pending one still waits for its answer.
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> tether.connection(c).state() == ConnectionState.DRAINING);
    assertThat(closed).isNotDone();
    assertThatThrownBy(() -> p.invoke("later", new byte[0])).hasMessageContaining("closed");

    release.countDown();
    assertThat(new String(call.get(10, TimeUnit.SECONDS), StandardCharsets.UTF_8))
        .isEqualTo("done");
    closed.get(10, TimeUnit.SECONDS);
    assertThat(tether.connection(c).state()).isEqualTo(ConnectionState.CLOSED);
    assertThat(started).hasValue(1);
  }

  @Test
  void callStillPendingWhenTheGraceEndsFailsAsLostAndCloseReturns() throws Exception {
    Tether tether = Tether.builder().property("tether.close.grace", "200ms").build();
    Proxy p = tether.proxy(server.proxyString("svc"));
    CompletableFuture<byte[]> call = p.invokeAsync("hold", new byte[0]);
    await().atMost(Duration.ofSeconds(10)).until(() -> started.get() == 1);

    CompletableFuture.runAsync(tether::close).get(10, TimeUnit.SECONDS);

    assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOfSatisfying(
            ConnectionLostException.class, e -> assertThat(e.mayHaveExecuted()).isTrue());
  }
}
