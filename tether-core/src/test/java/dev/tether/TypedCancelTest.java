package dev.tether;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The future of a typed asynchronous call is the call: cancelling it sends CANCEL, as cancelling an
 * untyped call's future does. Checked on a SERIALIZED server over loopback, where a request
 * cancelled while it waits for its connection's turn never runs.
 */
class TypedCancelTest {
  private static final Duration PATIENCE = Duration.ofSeconds(10);

  public interface Steps {
    CompletableFuture<Integer> block(int step);

    CompletableFuture<Integer> record(int step);
  }

  private final CountDownLatch release = new CountDownLatch(1);
  private final CountDownLatch blockEntered = new CountDownLatch(1);
  private final List<Integer> ran = new CopyOnWriteArrayList<>();
  private TetherServer server;

  @BeforeEach
  void start() {
    Steps impl =
        new Steps() {
          @Override
          public CompletableFuture<Integer> block(int step) {
            blockEntered.countDown();
            try {
              release.await(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            return record(step);
          }

          @Override
          public CompletableFuture<Integer> record(int step) {
            ran.add(step);
            return CompletableFuture.completedFuture(step);
          }
        };
    server =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .executionMode(ExecutionMode.SERIALIZED)
            .service("steps", Steps.class, impl)
            .build()
            .start();
  }

  @AfterEach
  void stop() {
    release.countDown();
    server.close();
  }

  @Test
  void cancellingATypedCallsFutureCancelsTheCall() throws Exception {
    try (Tether tether = Tether.create()) {
      Proxy proxy = tether.proxy(server.proxyString("steps"));
      proxy.connectAsync().get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
      Steps steps = proxy.as(Steps.class);
      CompletableFuture<Integer> busy = steps.block(1);
      assertThat(blockEntered.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
      CompletableFuture<Integer> doomed = steps.record(2);
      await().atMost(PATIENCE).until(() -> server.status().inFlight() == 2);

      assertThat(doomed.cancel(true)).isTrue(); // the client sends CANCEL on the connection
      CompletableFuture<Integer> after = steps.record(3);
      await().atMost(PATIENCE).until(() -> server.status().inFlight() == 3);
      release.countDown();

      assertThat(after.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isEqualTo(3);
      assertThat(busy.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isEqualTo(1);
      assertThat(doomed).isCancelled();
      assertThat(ran).containsExactly(1, 3);
    }
  }
}
