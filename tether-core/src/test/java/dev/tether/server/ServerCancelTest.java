package dev.tether.server;

import static dev.tether.server.SerializedDispatchTest.number;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.ExecutionMode;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.protocol.Cancel;
import dev.tether.protocol.Frame;
import dev.tether.protocol.Request;
import dev.tether.protocol.Response;
import dev.tether.protocol.Welcome;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The server side of CANCEL, on a SERIALIZED server over loopback: a request cancelled while it
 * waits for its connection's turn never runs and is never answered; one cancelled while it runs
 * finishes, unanswered. Answers are read raw off the socket, so "never answered" is checked on the
 * wire: in SERIALIZED mode a cancelled request's answer would come before the next request's.
 */
class ServerCancelTest {
  private static final Duration PATIENCE = Duration.ofSeconds(10);

  private final CountDownLatch release = new CountDownLatch(1);
  private final CountDownLatch blockEntered = new CountDownLatch(1);
  private final List<Integer> ran = new CopyOnWriteArrayList<>();
  private TetherServer server;

  @BeforeEach
  void start() {
    server =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .executionMode(ExecutionMode.SERIALIZED)
            .service(
                "svc",
                (operation, payload, context) -> {
                  if (operation.equals("block")) {
                    blockEntered.countDown();
                    release.await(PATIENCE.toSeconds(), TimeUnit.SECONDS);
                  }
                  ran.add(ByteBuffer.wrap(payload).getInt());
                  return payload;
                })
            .build()
            .start();
  }

  @AfterEach
  void stop() {
    release.countDown();
    server.close();
  }

  @Test
  void aRequestCancelledWhileQueuedNeverRunsAndIsNeverAnswered()
      throws IOException, InterruptedException {
    try (RawPeer peer = RawPeer.connect(server.endpoints().get(0).port())) {
      peer.send(RawPeer.handshake()).send(request(1, "block"));
      blockEntered.await(PATIENCE.toSeconds(), TimeUnit.SECONDS);
      peer.send(request(2, "record"), RawPeer.frame(new Cancel(2)), request(3, "record"));
      // Request 3 came after the CANCEL on the same connection: once it is in, so is the CANCEL.
      await().atMost(PATIENCE).until(() -> server.status().inFlight() == 3);
      release.countDown();

      List<Frame> frames = peer.readFrames(3);

      assertThat(frames.get(0)).isInstanceOf(Welcome.class);
      assertThat(frames.subList(1, 3)).extracting(Frame::requestId).containsExactly(1, 3);
      assertThat(ran).containsExactly(1, 3);
      await().atMost(PATIENCE).until(() -> server.status().inFlight() == 0);
    }
  }

  @Test
  void aRequestCancelledWhileRunningFinishesButIsNeverAnswered()
      throws IOException, InterruptedException {
    try (RawPeer peer = RawPeer.connect(server.endpoints().get(0).port())) {
      peer.send(RawPeer.handshake()).send(request(1, "block"));
      blockEntered.await(PATIENCE.toSeconds(), TimeUnit.SECONDS);
      peer.send(RawPeer.frame(new Cancel(1)), request(2, "record"));
      await().atMost(PATIENCE).until(() -> server.status().inFlight() == 2);
      release.countDown();

      List<Frame> frames = peer.readFrames(2);

      assertThat(frames.get(1))
          .isInstanceOf(Response.class)
          .extracting(Frame::requestId)
          .isEqualTo(2);
      assertThat(ran).containsExactly(1, 2);
    }
  }

  @Test
  void aCallItsCallerCancelsWhileItWaitsForItsTurnNeverRuns() throws Exception {
    try (Tether tether = Tether.create()) {
      Proxy p = tether.proxy(server.proxyString("svc"));
      p.connectAsync().get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
      CompletableFuture<byte[]> busy = p.invokeAsync("block", number(1));
      blockEntered.await(PATIENCE.toSeconds(), TimeUnit.SECONDS);
      CompletableFuture<byte[]> doomed = p.invokeAsync("record", number(2));
      await().atMost(PATIENCE).until(() -> server.status().inFlight() == 2);

      doomed.cancel(true); // the client sends CANCEL on the connection
      CompletableFuture<byte[]> after = p.invokeAsync("record", number(3));
      await().atMost(PATIENCE).until(() -> server.status().inFlight() == 3);
      release.countDown();

      assertThat(after.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isEqualTo(number(3));
      assertThat(busy.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isEqualTo(number(1));
      assertThat(ran).containsExactly(1, 3);
    }
  }

  private static byte[] request(int id, String operation) {
    return RawPeer.frame(new Request(id, 0, "svc", operation, 0, Map.of(), number(id)));
  }
}
