package dev.tether.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.ExecutionMode;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ExecutionMode#SERIALIZED} over real loopback connections: one connection's requests run
 * one at a time in arrival order, while other connections go on.
 */
class SerializedDispatchTest {
  private static final Duration PATIENCE = Duration.ofSeconds(10);

  private final CountDownLatch release = new CountDownLatch(1);
  private final CountDownLatch blockEntered = new CountDownLatch(1);
  private final List<Integer> order = new CopyOnWriteArrayList<>();
  private final AtomicInteger running = new AtomicInteger();
  private final AtomicInteger mostAtOnce = new AtomicInteger();
  private TetherServer server;
  private Tether tether;

  private void start(ExecutionMode mode) {
    start(mode, null);
  }

  /**
   * @param executor the service executor, null for the server's own pool
   */
  private void start(ExecutionMode mode, java.util.concurrent.Executor executor) {
    TetherServer.Builder builder = TetherServer.builder();
    if (executor != null) {
      builder.executor(executor);
    }
    server =
        builder
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .executionMode(mode)
            .service(
                "svc",
                (operation, payload, context) -> {
                  int now = running.incrementAndGet();
                  mostAtOnce.accumulateAndGet(now, Math::max);
                  try {
                    if (operation.equals("block")) {
                      blockEntered.countDown();
                      release.await(PATIENCE.toSeconds(), TimeUnit.SECONDS);
                    } else {
                      order.add(ByteBuffer.wrap(payload).getInt());
                    }
                    return payload;
                  } finally {
                    running.decrementAndGet();
                  }
                })
            .build()
            .start();
    tether = Tether.create();
  }

  @AfterEach
  void stop() {
    release.countDown();
    tether.close();
    server.close();
  }

  @Test
  void requestsOfOneConnectionRunOneAtATimeInArrivalOrder() throws Exception {
    start(ExecutionMode.SERIALIZED);
    Proxy p = tether.proxy(server.proxyString("svc"));
    // Connected first: calls that wait together for a new connection are handed over in no set
    // order.
    p.connectAsync().get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    int calls = 100;
    List<CompletableFuture<byte[]>> answers = new ArrayList<>();
    answers.add(p.invokeAsync("block", number(-1)));
    for (int i = 0; i < calls; i++) {
      answers.add(p.invokeAsync("record", number(i)));
    }
    // Every call has arrived while the first still holds the connection's turn.
    await().atMost(PATIENCE).until(() -> server.status().inFlight() == calls + 1);
    release.countDown();

    CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
        .get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    List<Integer> expected = new ArrayList<>();
    for (int i = 0; i < calls; i++) {
      expected.add(i);
    }
    assertThat(order).containsExactlyElementsOf(expected);
    assertThat(mostAtOnce.get()).isEqualTo(1);
  }

  @Test
  void theSameCallsRunConcurrentlyInExecutorMode() throws Exception {
    // The control for the test above: without SERIALIZED, the calls behind "block" do not wait.
    start(ExecutionMode.EXECUTOR);
    Proxy p = tether.proxy(server.proxyString("svc"));
    CompletableFuture<byte[]> blocked = p.invokeAsync("block", number(-1));
    blockEntered.await(PATIENCE.toSeconds(), TimeUnit.SECONDS);

    p.invokeAsync("record", number(0)).get(PATIENCE.toSeconds(), TimeUnit.SECONDS);

    assertThat(blocked).isNotDone();
    assertThat(mostAtOnce.get()).isEqualTo(2);
  }

  @Test
  void aSlowRequestOnOneConnectionDoesNotDelayAnother() throws Exception {
    start(ExecutionMode.SERIALIZED);
    Proxy a = tether.proxy(server.proxyString("svc")).withConnectionId("a");
    Proxy b = tether.proxy(server.proxyString("svc")).withConnectionId("b");
    CompletableFuture<byte[]> slow = a.invokeAsync("block", number(-1));
    blockEntered.await(PATIENCE.toSeconds(), TimeUnit.SECONDS);

    assertThat(b.invokeAsync("record", number(7)).get(PATIENCE.toSeconds(), TimeUnit.SECONDS))
        .isEqualTo(number(7));

    assertThat(slow).isNotDone();
    release.countDown();
    assertThat(slow.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isEqualTo(number(-1));
    assertThat(server.connectionCount()).isEqualTo(2);
  }

  @Test
  void aLaneWaitsForABusyExecutorInsteadOfBeingRefused() throws Exception {
    // One thread and no queue: the executor itself refuses work while its thread is busy, so only
    // the server's run queue can hold the second connection's lane until the thread is free.
    ThreadPoolExecutor oneThread =
        new ThreadPoolExecutor(1, 1, 60, TimeUnit.SECONDS, new SynchronousQueue<>());
    try {
      start(ExecutionMode.SERIALIZED, oneThread);
      Proxy a = tether.proxy(server.proxyString("svc")).withConnectionId("a");
      Proxy b = tether.proxy(server.proxyString("svc")).withConnectionId("b");
      b.connectAsync().get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
      CompletableFuture<byte[]> slow = a.invokeAsync("block", number(-1));
      blockEntered.await(PATIENCE.toSeconds(), TimeUnit.SECONDS);

      CompletableFuture<byte[]> waiting = b.invokeAsync("record", number(7));
      await().atMost(PATIENCE).until(() -> server.status().inFlight() == 2);
      assertThat(waiting).isNotDone();
      release.countDown();

      assertThat(waiting.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isEqualTo(number(7));
      assertThat(slow.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isEqualTo(number(-1));
      assertThat(order).containsExactly(7);
    } finally {
      release.countDown();
      oneThread.shutdownNow();
    }
  }

  static byte[] number(int i) {
    return ByteBuffer.allocate(4).putInt(i).array();
  }
}
