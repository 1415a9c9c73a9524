package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.protocol.FrameReader;
import dev.tether.protocol.FrameWriter;
import dev.tether.protocol.ProtocolVersion;
import dev.tether.protocol.Request;
import dev.tether.protocol.Response;
import dev.tether.protocol.Status;
import dev.tether.protocol.Welcome;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A server that stops reading, over real loopback: once 1 MiB of requests waits on the client's
 * connection, new calls stay queued unwritten (the connection says it is not writable), a call
 * cancelled while queued never reaches the server, and the rest go out once the server reads.
 */
class UnwritableConnectionTest {
  private static final int PAYLOAD_BYTES = 256 * 1024;
  private static final int CALLS = 64;

  private final CountDownLatch startReading = new CountDownLatch(1);

  /** The call numbers (first four payload bytes) of every request the server read. */
  private final Set<Integer> arrived = ConcurrentHashMap.newKeySet();

  /** How often each call number was read, over every connection. */
  private final Map<Integer, Integer> executions = new ConcurrentHashMap<>();

  private ServerSocket listener;
  private Tether tether;

  @AfterEach
  void stop() throws IOException {
    startReading.countDown();
    if (tether != null) {
      tether.close();
    }
    listener.close();
  }

  /**
   * Handshakes each connection; the first reads nothing until told to, later ones (extra
   * connections) are served at once; every request is answered OK.
   */
  private int stalledServer() throws IOException {
    listener = new ServerSocket();
    listener.setReceiveBufferSize(64 * 1024);
    listener.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
    Thread acceptor =
        new Thread(
            () -> {
              for (int n = 0; !listener.isClosed(); n++) {
                try {
                  Socket s = listener.accept();
                  boolean stalls = n == 0;
                  Thread t = new Thread(() -> serve(s, stalls), "stalled-server-" + n);
                  t.setDaemon(true);
                  t.start();
                } catch (IOException closed) {
                  return;
                }
              }
            },
            "stalled-server");
    acceptor.setDaemon(true);
    acceptor.start();
    return listener.getLocalPort();
  }

  private void serve(Socket socket, boolean stalls) {
    try (Socket s = socket) {
      DataInputStream in = new DataInputStream(s.getInputStream());
      OutputStream out = s.getOutputStream();
      in.skipNBytes(ProtocolVersion.PREFACE_LENGTH);
      in.skipNBytes(in.readInt()); // HELLO
      ByteBuf welcome = Unpooled.buffer();
      FrameWriter.writePreface(welcome);
      FrameWriter.encode(new Welcome("stalled", "1", 0, 1 << 24, 10_000, "", List.of()), welcome);
      out.write(bytes(welcome));
      if (stalls) {
        startReading.await(30, TimeUnit.SECONDS);
      }
      while (true) {
        byte[] frame = new byte[in.readInt()];
        in.readFully(frame);
        Request r = (Request) FrameReader.decode(Unpooled.wrappedBuffer(frame));
        int call = ByteBuffer.wrap(r.body()).getInt();
        arrived.add(call);
        executions.merge(call, 1, Integer::sum);
        ByteBuf answer = Unpooled.buffer();
        FrameWriter.encode(new Response(r.requestId(), Status.OK, Map.of(), new byte[0]), answer);
        out.write(bytes(answer));
      }
    } catch (IOException | InterruptedException | RuntimeException closed) {
      // The test ended the exchange.
    }
  }

  private static byte[] bytes(ByteBuf b) {
    byte[] out = new byte[b.readableBytes()];
    b.readBytes(out);
    return out;
  }

  private static byte[] payload(int call) {
    return ByteBuffer.allocate(PAYLOAD_BYTES).putInt(call).array();
  }

  @Test
  void callsWaitUnwrittenWhileTheServerReadsNothingAndGoOutWhenItDoes() throws Exception {
    int port = stalledServer();
    // No extra connection may take the calls over: they wait on this one.
    tether = Tether.builder().property("tether.connection.maxExtra", "0").build();
    Proxy p = tether.proxy("svc:tcp -h 127.0.0.1 -p " + port);
    ClientConnection c = dev.tether.LiveConnections.stream(tether, p.connection());
    List<CompletableFuture<byte[]>> calls = new ArrayList<>();
    for (int i = 0; i < CALLS; i++) {
      calls.add(p.invokeAsync("put", payload(i)));
    }

    await().until(() -> !c.isWritable());
    assertThat(c.bytesBeforeUnwritable()).isZero();
    CompletableFuture<byte[]> cancelled = p.invokeAsync("put", payload(CALLS));
    // A status snapshot runs on the connection's loop after the writer's turn: the call has been
    // looked at by the writer, and held back, before it is cancelled.
    c.status().get(10, TimeUnit.SECONDS);
    assertThat(c.outstandingRequests())
        .as("the held call is not waiting for an answer")
        .isLessThan(CALLS);
    cancelled.cancel(false);

    startReading.countDown();
    CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
    assertThat(arrived).hasSize(CALLS).doesNotContain(CALLS);
    assertThat(c.isWritable()).isTrue();
  }

  @Test
  void callsPastTheHighWaterMarkGoToAnExtraConnectionWhileTheFirstStaysStalled() throws Exception {
    int port = stalledServer();
    tether = Tether.builder().build();
    Proxy p = tether.proxy("svc:tcp -h 127.0.0.1 -p " + port);
    ClientConnection first = dev.tether.LiveConnections.stream(tether, p.connection());
    List<CompletableFuture<byte[]>> calls = new ArrayList<>();
    for (int i = 0; i < CALLS; i++) {
      calls.add(p.invokeAsync("put", payload(i)));
    }

    // The first connection's server reads nothing, yet calls are answered: over an extra one.
    await()
        .atMost(java.time.Duration.ofSeconds(20))
        .until(() -> calls.stream().filter(CompletableFuture::isDone).count() > CALLS / 2);
    assertThat(first.isWritable()).isFalse();
    assertThat(tether.status().connections()).hasSizeGreaterThan(1);

    startReading.countDown();
    CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
    assertThat(executions).hasSize(CALLS);
    assertThat(executions.values()).allSatisfy(n -> assertThat(n).isEqualTo(1));
  }
}
