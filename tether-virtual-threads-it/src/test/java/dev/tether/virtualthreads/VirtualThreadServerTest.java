package dev.tether.virtualthreads;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tether.ExecutionMode;
import dev.tether.Proxy;
import dev.tether.RawService;
import dev.tether.Tether;
import dev.tether.TetherServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A VIRTUAL_THREADS server over real loopback sockets, with blocking callers on virtual threads.
 */
class VirtualThreadServerTest {
  /**
   * Each call blocks until all of them have arrived: only a server that runs every one at once (a
   * pool of 256 would hold 1,744 back) answers them all before the wait gives up.
   */
  @Test
  void aVirtualThreadServerRunsTwoThousandBlockingCallsAtOnce() throws Exception {
    int calls = 2_000;
    CountDownLatch arrived = new CountDownLatch(calls);
    RawService waitForAll =
        (operation, payload, context) -> {
          arrived.countDown();
          if (!arrived.await(20, TimeUnit.SECONDS)) {
            throw new IllegalStateException(
                "only " + (calls - arrived.getCount()) + " calls ran at once");
          }
          Thread me = Thread.currentThread();
          return (OnVirtualThreads.isVirtual(me) + " " + me.getName()).getBytes(UTF_8);
        };
    try (TetherServer server =
            TetherServer.builder()
                .endpoints("tcp -h 127.0.0.1 -p 0")
                .service("wait", waitForAll)
                .executionMode(ExecutionMode.VIRTUAL_THREADS)
                .build()
                .start();
        Tether tether = Tether.create()) {
      Proxy proxy = tether.proxy(server.proxyString("wait"));

      List<String> ranOn =
          OnVirtualThreads.runAtOnce(
              calls, i -> new String(proxy.invoke("wait", new byte[] {(byte) i}), UTF_8), 30);

      assertThat(arrived.getCount()).isZero();
      assertThat(ranOn)
          .hasSize(calls)
          .allSatisfy(where -> assertThat(where).startsWith("true tether-service-virtual-"));
    }
  }

  @Test
  void aDrainingVirtualThreadServerLetsItsRunningCallsFinish() throws Exception {
    int calls = 20;
    CountDownLatch arrived = new CountDownLatch(calls);
    CountDownLatch release = new CountDownLatch(1);
    RawService held =
        (operation, payload, context) -> {
          arrived.countDown();
          if (!release.await(20, TimeUnit.SECONDS)) {
            throw new IllegalStateException("never released");
          }
          return payload;
        };
    TetherServer server =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service("held", held)
            .executionMode(ExecutionMode.VIRTUAL_THREADS)
            .build()
            .start();
    try (Tether tether = Tether.create()) {
      Proxy proxy = tether.proxy(server.proxyString("held"));
      List<CompletableFuture<byte[]>> replies = new java.util.ArrayList<>();
      for (int i = 0; i < calls; i++) {
        replies.add(proxy.invokeAsync("held", new byte[] {(byte) i}));
      }
      assertThat(arrived.await(10, TimeUnit.SECONDS)).as("every call started").isTrue();

      CompletableFuture<Void> drained =
          CompletableFuture.runAsync(() -> server.shutdownGracefully(Duration.ofSeconds(10)));
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> server.status().state().equals("DRAINING"));
      assertThat(drained).as("the drain waits for the running calls").isNotDone();
      release.countDown();

      for (int i = 0; i < calls; i++) {
        assertThat(replies.get(i).get(10, TimeUnit.SECONDS)).containsExactly((byte) i);
      }
      drained.get(15, TimeUnit.SECONDS);
    } finally {
      server.close();
    }
  }

  @Test
  void aVirtualThreadServerGivenAnExecutorFailsTheBuildSayingItStartsItsOwnThreads() {
    TetherServer.Builder builder =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service("echo", (operation, payload, context) -> payload)
            .executor(Runnable::run)
            .property("tether.server.executionMode", "virtual-threads");

    assertThatThrownBy(builder::build)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("starts a virtual thread per call and takes no executor");
  }
}
