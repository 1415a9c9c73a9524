package dev.tether.server;

import static dev.tether.server.SerializedDispatchTest.number;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.protocol.Cancel;
import dev.tether.protocol.Frame;
import dev.tether.protocol.Request;
import dev.tether.protocol.Welcome;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * EXECUTOR mode's hand-off over loopback: calls reach the pool through the dispatcher's run queue,
 * and still each blocked call holds a thread of its own, a call cancelled while it waits never
 * runs, and a user's executor runs the calls.
 */
class ExecutorHandOffTest {
  private static final Duration PATIENCE = Duration.ofSeconds(10);

  /** More than the default pool's core threads on any machine this runs on (max(8, 4 x cores)). */
  private static final int BLOCKED =
      Math.max(8, 4 * Runtime.getRuntime().availableProcessors()) + 4;

  private final CountDownLatch release = new CountDownLatch(1);
  private final List<Integer> ran = new CopyOnWriteArrayList<>();
  private final List<String> threads = new CopyOnWriteArrayList<>();
  private CountDownLatch entered = new CountDownLatch(1);
  private TetherServer server;
  private ExecutorService userExecutor;

  private TetherServer start(TetherServer.Builder builder) {
    server =
        builder
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service(
                "svc",
                (operation, payload, context) -> {
                  threads.add(Thread.currentThread().getName());
                  if (operation.equals("block")) {
                    entered.countDown();
                    release.await(PATIENCE.toSeconds(), TimeUnit.SECONDS);
                  }
                  ran.add(ByteBuffer.wrap(payload).getInt());
                  return payload;
                })
            .build()
            .start();
    return server;
  }

  @AfterEach
  void stop() {
    release.countDown();
    if (server != null) {
      server.close();
    }
    if (userExecutor != null) {
      userExecutor.shutdownNow();
    }
  }

  @Test
  void blockingServiceCallsRunConcurrentlyOnTheExecutor() throws Exception {
    entered = new CountDownLatch(BLOCKED);
    start(TetherServer.builder());
    try (Tether tether = Tether.create()) {
      Proxy p = tether.proxy(server.proxyString("svc"));
      p.connectAsync().get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
      List<CompletableFuture<byte[]>> calls = new ArrayList<>();
      for (int i = 0; i < BLOCKED; i++) {
        calls.add(p.invokeAsync("block", number(i)));
      }

      // Every call is inside the service at once: none waits behind another that blocks.
      assertThat(entered.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
      release.countDown();

      for (int i = 0; i < BLOCKED; i++) {
        assertThat(calls.get(i).get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isEqualTo(number(i));
      }
      assertThat(ran).hasSize(BLOCKED);
      assertThat(threads).allMatch(name -> name.startsWith("tether-service"));
    }
  }

  @Test
  void cancelledQueuedCallNeverRuns() throws IOException, InterruptedException {
    userExecutor = Executors.newSingleThreadExecutor();
    start(TetherServer.builder().executor(userExecutor));
    try (RawPeer peer = RawPeer.connect(server.endpoints().get(0).port())) {
      peer.send(RawPeer.handshake()).send(request(1, "block"));
      assertThat(entered.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
      // The executor's one thread is blocked: request 2 waits in the run queue when it is
      // cancelled.
      peer.send(request(2, "record"), RawPeer.frame(new Cancel(2)), request(3, "record"));
      await().atMost(PATIENCE).until(() -> server.status().inFlight() == 3);
      release.countDown();

      List<Frame> frames = peer.readFrames(3);

      assertThat(frames.get(0)).isInstanceOf(Welcome.class);
      assertThat(frames.subList(1, 3)).extracting(Frame::requestId).containsExactlyInAnyOrder(1, 3);
      assertThat(ran).containsExactlyInAnyOrder(1, 3);
      await().atMost(PATIENCE).until(() -> server.status().inFlight() == 0);
    }
  }

  @Test
  void userSuppliedExecutorRunsEveryCall() throws Exception {
    userExecutor = Executors.newFixedThreadPool(2, r -> new Thread(r, "user-pool"));
    start(TetherServer.builder().executor(userExecutor));
    try (Tether tether = Tether.create()) {
      Proxy p = tether.proxy(server.proxyString("svc"));
      List<CompletableFuture<byte[]>> calls = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        calls.add(p.invokeAsync("record", number(i)));
      }

      for (int i = 0; i < calls.size(); i++) {
        assertThat(calls.get(i).get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isEqualTo(number(i));
      }
      assertThat(ran).hasSize(200).doesNotHaveDuplicates();
      assertThat(threads).containsOnly("user-pool");
    }
  }

  private static byte[] request(int id, String operation) {
    return RawPeer.frame(new Request(id, 0, "svc", operation, 0, Map.of(), number(id)));
  }
}
