package dev.tether.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.Endpoint;
import dev.tether.ExecutionMode;
import dev.tether.internal.EventBus;
import dev.tether.protocol.BodyCompression;
import dev.tether.protocol.FrameWriter;
import dev.tether.protocol.ProtocolVersion;
import dev.tether.protocol.Request;
import dev.tether.protocol.Welcome;
import dev.tether.spi.Ticker;
import dev.tether.transport.EventLoopScheduler;
import dev.tether.transport.TransportSet;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A client that stops reading while the server streams large replies, over real loopback: once 1
 * MiB of replies waits on its connection the server stops reading that connection's requests, so
 * what it holds for the client stays bounded, while other connections go on being served; once the
 * client reads again, every request is answered, each executed once.
 */
class SlowReaderTest {
  private static final int REPLY_BYTES = 256 * 1024;
  private static final int REQUEST_BYTES = 256 * 1024;

  /** 25 MiB of requests asking for 25 MiB of replies: far more than the sockets buffer. */
  private static final int REQUESTS = 100;

  private final AtomicInteger executed = new AtomicInteger();
  private ServerRuntime runtime;
  private int port;

  @BeforeEach
  void start() {
    TransportSet transports = new TransportSet("slow-reader-server", 1, false, null, null);
    Dispatcher dispatcher =
        new Dispatcher(
            Map.of(
                "big",
                new RawServiceHandler(
                    (op, payload, ctx) -> {
                      executed.incrementAndGet();
                      return new byte[REPLY_BYTES];
                    })),
            ExecutionMode.DIRECT,
            null,
            Ticker.system());
    Welcome welcome =
        new Welcome("slow", "1", 0, ProtocolVersion.DEFAULT_MAX_FRAME_SIZE, 10_000, "", List.of());
    runtime =
        new ServerRuntime(
            Endpoint.parseList("tcp -h 127.0.0.1 -p 0"),
            transports,
            dispatcher,
            () -> welcome,
            ProtocolVersion.DEFAULT_MAX_FRAME_SIZE,
            Integer.MAX_VALUE,
            new ServerRuntime.Timing(
                Ticker.system(),
                new EventLoopScheduler(transports.ioGroup()),
                Duration.ZERO,
                Duration.ZERO),
            null,
            new EventBus(List.of(), Ticker.system(), "slow-reader-events"),
            BodyCompression.Settings.parse(null, null),
            StreamRegistry.none(),
            ServedProtocols.none());
    runtime.start();
    port = runtime.boundEndpoints().get(0).port();
  }

  @AfterEach
  void stop() {
    runtime.close();
  }

  /** How many open connections have stopped reading, each read on its own loop. */
  private int readPausedConnections() {
    return (int)
        ConnectionReads.onEachLoop(runtime.openConnections(), ServerConnection::isReadPaused)
            .stream()
            .filter(paused -> paused)
            .count();
  }

  /** A socket with a small receive window, handshaken by hand: what follows WELCOME is replies. */
  private Socket handshaken() throws IOException {
    Socket s = new Socket();
    s.setReceiveBufferSize(64 * 1024);
    s.setSoTimeout(10_000);
    s.connect(new InetSocketAddress("127.0.0.1", port));
    for (byte[] part : RawPeer.handshake()) {
      s.getOutputStream().write(part);
    }
    DataInputStream in = new DataInputStream(s.getInputStream());
    in.skipNBytes(ProtocolVersion.PREFACE_LENGTH);
    in.skipNBytes(in.readInt()); // WELCOME
    return s;
  }

  private static byte[] request(int id) {
    ByteBuf b = Unpooled.buffer();
    FrameWriter.encode(new Request(id, 0, "big", "get", 0, Map.of(), new byte[REQUEST_BYTES]), b);
    byte[] out = new byte[b.readableBytes()];
    b.readBytes(out);
    return out;
  }

  /** Reads frames until {@code count} have arrived; returns how many reply bytes they carried. */
  private static long readFrames(Socket s, int count) throws IOException {
    DataInputStream in = new DataInputStream(s.getInputStream());
    long bytes = 0;
    for (int i = 0; i < count; i++) {
      int length = in.readInt();
      in.skipNBytes(length);
      bytes += length;
    }
    return bytes;
  }

  @Test
  void serverStopsReadingAClientThatLeavesRepliesUnreadAndServesItOnceItReadsAgain()
      throws Exception {
    Socket slow = handshaken();
    CompletableFuture<Void> writer =
        CompletableFuture.runAsync(
            () -> {
              try {
                OutputStream out = slow.getOutputStream();
                for (int id = 1; id <= REQUESTS; id++) {
                  out.write(request(id));
                }
              } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            });

    await().until(() -> readPausedConnections() == 1);
    int executedWhenPaused = executed.get();

    // Another client is served meanwhile: only the slow connection stopped reading.
    try (Socket other = handshaken()) {
      other.getOutputStream().write(request(1));
      assertThat(readFrames(other, 1)).isGreaterThan(REPLY_BYTES);
    }
    assertThat(readPausedConnections()).isEqualTo(1);
    assertThat(writer)
        .as("the slow client's writes are held back by the server not reading")
        .isNotDone();
    // What the server executed for the slow client, and so holds for it, is bounded by what the
    // sockets buffer and one read burst, not by what the client sent.
    assertThat(executed.get() - 1).isEqualTo(executedWhenPaused).isLessThan(REQUESTS / 2);

    long replyBytes = readFrames(slow, REQUESTS);

    writer.join();
    assertThat(replyBytes).isGreaterThan((long) REQUESTS * REPLY_BYTES);
    assertThat(executed.get()).isEqualTo(REQUESTS + 1);
    await().until(() -> readPausedConnections() == 0);
    slow.close();
  }
}
