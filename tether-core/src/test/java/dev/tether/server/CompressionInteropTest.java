package dev.tether.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.github.luben.zstd.Zstd;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.protocol.BodyCompression;
import dev.tether.protocol.Frame;
import dev.tether.protocol.FrameReader;
import dev.tether.protocol.FrameWriter;
import dev.tether.protocol.GoAway;
import dev.tether.protocol.GoAwayReason;
import dev.tether.protocol.Hello;
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
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Compression between Tether and peers that speak the protocol by hand over loopback sockets: 1.0
 * peers that know nothing of it, 1.1 peers that announce it or not, and one that sends a corrupt
 * body. What the server writes is read raw, so the wire itself is checked.
 */
class CompressionInteropTest {
  private static final byte[] TEXT = text(64 * 1024);
  private static final byte[] PREFACE_1_0 = {'T', 'E', 'T', 'H', 1, 0, 0, 0};
  private static final byte[] PREFACE_1_1_ZSTD = {
    'T', 'E', 'T', 'H', 1, 1, 0, BodyCompression.ZSTD
  };
  private static final byte[] PREFACE_1_1_NOTHING = {'T', 'E', 'T', 'H', 1, 1, 0, 0};

  private TetherServer server;
  private Tether tether;
  private int port;

  @BeforeEach
  void start() {
    server =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service("echo", (op, payload, ctx) -> payload)
            .build()
            .start();
    port = server.endpoints().get(0).port();
    tether = Tether.create();
  }

  @AfterEach
  void stop() {
    tether.close();
    server.close();
  }

  @Test
  void a10ClientIsServedWithUncompressedReplies() throws IOException {
    List<Frame> answer = exchange(PREFACE_1_0, request(1, 0, TEXT));

    Response r = (Response) answer.get(1);
    assertThat(r.flags()).isZero();
    assertThat(r.body()).isEqualTo(TEXT);
  }

  @Test
  void aCompressedRequestFromAClientThatAnnouncedZstdGetsACompressedReply() throws IOException {
    List<Frame> answer =
        exchange(PREFACE_1_1_ZSTD, request(1, Request.COMPRESSED, Zstd.compress(TEXT, 1)));

    Response r = (Response) answer.get(1);
    assertThat(r.flags()).isEqualTo(Response.COMPRESSED);
    assertThat(r.body().length).isLessThan(TEXT.length / 4);
    assertThat(Zstd.decompress(r.body(), TEXT.length)).isEqualTo(TEXT);
  }

  @Test
  void anUncompressedRequestGetsAnUncompressedReplyEvenWhenBothAnnouncedZstd() throws IOException {
    List<Frame> answer = exchange(PREFACE_1_1_ZSTD, request(1, 0, TEXT));

    assertThat(((Response) answer.get(1)).flags()).isZero();
  }

  @Test
  void aClientThatAnnouncedNothingGetsAnUncompressedReplyToItsCompressedRequest()
      throws IOException {
    List<Frame> answer =
        exchange(PREFACE_1_1_NOTHING, request(1, Request.COMPRESSED, Zstd.compress(TEXT, 1)));

    Response r = (Response) answer.get(1);
    assertThat(r.flags()).isZero();
    assertThat(r.body()).isEqualTo(TEXT);
  }

  @Test
  void theServerAnnouncesZstdInItsPreface() throws IOException {
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
      s.setSoTimeout(10_000);
      s.getOutputStream().write(concat(PREFACE_1_0, frame(new Hello("raw", 1 << 20))));
      byte[] preface = new DataInputStream(s.getInputStream()).readNBytes(8);

      assertThat(preface)
          .containsExactly('T', 'E', 'T', 'H', 1, ProtocolVersion.MINOR, 0, BodyCompression.ZSTD);
    }
  }

  @Test
  void aCorruptCompressedBodyClosesThatConnectionOnlyWithAProtocolError() throws IOException {
    byte[] corrupt = Zstd.compress(TEXT, 1);
    for (int i = 12; i < corrupt.length; i += 5) {
      corrupt[i] ^= 0x33;
    }
    Proxy healthy = tether.proxy(server.proxyString("echo") + " -z");
    assertThat(healthy.invoke("echo", TEXT)).isEqualTo(TEXT);

    List<Frame> answer;
    try (RawPeer peer = RawPeer.connect(port)) {
      answer =
          peer.send(
                  PREFACE_1_1_ZSTD,
                  frame(new Hello("raw", 1 << 20)),
                  request(4, Request.COMPRESSED, corrupt))
              .readUntilClosed();
      assertThat(peer.closedByServer()).isTrue();
    }

    assertThat(answer).hasSize(2);
    GoAway goAway = (GoAway) answer.get(1);
    assertThat(goAway.reason()).isEqualTo(GoAwayReason.PROTOCOL_ERROR);
    assertThat(goAway.message()).startsWith("REQUEST.body: ");
    assertThat(healthy.invoke("echo", TEXT)).isEqualTo(TEXT);
    // The server forgets the closed connection on its loop after the peer has seen the close.
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(server.connectionCount()).isEqualTo(1));
  }

  @Test
  void aTetherClientNeverSendsCompressedBodiesToA10Server() throws Exception {
    try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      listener.setSoTimeout(10_000);
      CompletableFuture<Request> seen = new CompletableFuture<>();
      CompletableFuture.runAsync(() -> serveOneRequestAs10(listener, seen));
      Proxy zipped = tether.proxy("echo:tcp -h 127.0.0.1 -p " + listener.getLocalPort() + " -z");

      assertThat(zipped.invoke("echo", TEXT)).isEqualTo("ok".getBytes(StandardCharsets.UTF_8));

      Request request = seen.get(10, TimeUnit.SECONDS);
      assertThat(request.flags() & Request.COMPRESSED).isZero();
      assertThat(request.body()).isEqualTo(TEXT);
    }
  }

  /**
   * A 1.0 server by hand: preface with no capabilities, WELCOME, one answer; hands over the request
   * it read, then holds the socket until the client closes it.
   */
  private static void serveOneRequestAs10(ServerSocket listener, CompletableFuture<Request> seen) {
    try (Socket s = listener.accept()) {
      s.setSoTimeout(10_000);
      DataInputStream in = new DataInputStream(s.getInputStream());
      in.readNBytes(8);
      readFrame(in); // HELLO
      OutputStream out = s.getOutputStream();
      out.write(
          concat(
              PREFACE_1_0,
              frame(new Welcome("raw-1.0", "1.0", 20_000, 1 << 24, 100, "", List.of()))));
      Request request = (Request) readFrame(in);
      out.write(
          frame(
              new Response(
                  request.requestId(),
                  Status.OK,
                  Map.of(),
                  "ok".getBytes(StandardCharsets.UTF_8))));
      out.flush();
      seen.complete(request);
      // Closing now could reset the answer away; the client closes when the test ends.
      while (in.read() >= 0) {
        // a PING or the close
      }
    } catch (IOException e) {
      seen.completeExceptionally(e);
    }
  }

  private static Frame readFrame(DataInputStream in) throws IOException {
    byte[] frame = new byte[in.readInt()];
    in.readFully(frame);
    return FrameReader.decode(Unpooled.wrappedBuffer(frame));
  }

  /** Preface, HELLO and one request; returns WELCOME and the answer. */
  private List<Frame> exchange(byte[] preface, byte[] request) throws IOException {
    try (RawPeer peer = RawPeer.connect(port)) {
      List<Frame> frames =
          peer.send(preface, frame(new Hello("raw", 1 << 20)), request).readFrames(2);
      assertThat(frames).hasSize(2);
      assertThat(frames.get(0)).isInstanceOf(Welcome.class);
      return frames;
    }
  }

  private static byte[] request(int id, int flags, byte[] body) {
    return frame(new Request(id, flags, "echo", "echo", 0, Map.of(), body));
  }

  private static byte[] frame(Frame f) {
    ByteBuf b = Unpooled.buffer();
    FrameWriter.encode(f, b);
    byte[] out = new byte[b.readableBytes()];
    b.readBytes(out);
    return out;
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] both = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, both, a.length, b.length);
    return both;
  }

  private static byte[] text(int bytes) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; sb.length() < bytes; i++) {
      sb.append("{\"id\":")
          .append(i)
          .append(",\"name\":\"customer ")
          .append(i % 23)
          .append("\",\"ok\":true},");
    }
    sb.setLength(bytes);
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }
}
