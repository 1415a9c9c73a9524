package dev.tether.grpc;

import static dev.tether.grpc.InteropService.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tether.TetherServer;
import dev.tether.observe.TetherEvent;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersEncoder;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a gRPC server owes the clients that break the rules: messages above the limit, headers above
 * the list size, a client that never finishes its preface, a malformed frame. Each costs that call
 * or that connection only; the other clients are served.
 */
@Timeout(60)
class GrpcHostileInputTest {
  private static final int FRAME_HEADERS = 0x1;
  private static final int FRAME_SETTINGS = 0x4;
  private static final int FRAME_GOAWAY = 0x7;
  private static final int END_STREAM_AND_HEADERS = 0x5;

  private final List<TetherEvent> events = new CopyOnWriteArrayList<>();
  private TetherGrpcServerFixture grpc;
  private TetherServer server;
  private ManagedChannel channel;

  @BeforeEach
  void start() {
    grpc =
        TetherGrpcServerFixture.start(
            TetherGrpc.server().service(new InteropService().definition()),
            TetherServer.builder()
                .property("tether.server.handshakeTimeout", "500ms")
                .listener(events::add));
    server = grpc.server();
    channel = grpc.channel();
  }

  @AfterEach
  void stop() throws InterruptedException {
    grpc.close();
  }

  private int port() {
    return server.endpoints().get(0).port();
  }

  private void assertOthersAreServed() {
    byte[] answer =
        ClientCalls.blockingUnaryCall(
            channel,
            InteropService.UNARY,
            CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS),
            text("still here"));
    assertThat(text(answer)).isEqualTo("still here");
  }

  @Test
  void refusesARequestMessageAboveTheConfiguredLimitWithResourceExhaustedAndServesTheNext()
      throws InterruptedException {
    int limit = 64 * 1024;
    TetherServer limited =
        TetherGrpc.server()
            .service(new InteropService().definition())
            .maxInboundMessageSize(limit)
            .configure(TetherServer.builder().endpoints("tcp -h 127.0.0.1 -p 0"))
            .build()
            .start();
    ManagedChannel client =
        ManagedChannelBuilder.forAddress("127.0.0.1", limited.endpoints().get(0).port())
            .usePlaintext()
            .build();
    try {
      assertThatThrownBy(
              () ->
                  ClientCalls.blockingUnaryCall(
                      client, InteropService.UNARY, CallOptions.DEFAULT, new byte[limit + 1]))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED));

      assertThat(
              ClientCalls.blockingUnaryCall(
                  client, InteropService.UNARY, CallOptions.DEFAULT, new byte[limit]))
          .hasSize(limit);
      assertThat(GrpcServices.DEFAULT_MAX_INBOUND_MESSAGE_SIZE).isEqualTo(4 * 1024 * 1024);
    } finally {
      client.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      limited.close();
    }
  }

  @Test
  void closesAClientThatConnectsAndSendsNothingAtTheHandshakeTimeout() throws IOException {
    try (Socket silent = connect()) {
      assertThat(framesUntilClosed(silent)).isEmpty();
    }
    assertOthersAreServed();
  }

  @Test
  void closesAClientThatSendsThePrefaceButNoSettingsAtTheHandshakeTimeout() throws IOException {
    try (Socket halfway = connect()) {
      halfway.getOutputStream().write(ByteBufUtil.getBytes(Http2CodecUtil.connectionPrefaceBuf()));

      // The server's own SETTINGS and connection window, then nothing until it closes.
      assertThat(framesUntilClosed(halfway)).containsExactly("type 4", "type 8");
    }
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () ->
                assertThat(events)
                    .anySatisfy(
                        e -> {
                          assertThat(e.kind()).isEqualTo(TetherEvent.Kind.PROTOCOL_ERROR);
                          assertThat(e.detail()).contains("grpc: no HTTP/2 preface and SETTINGS");
                        }));
    assertOthersAreServed();
  }

  @Test
  void aMalformedFrameClosesThatConnectionOnlyWithGoAwayProtocolError() throws IOException {
    assertOthersAreServed();
    try (Socket broken = connect()) {
      OutputStream out = broken.getOutputStream();
      out.write(ByteBufUtil.getBytes(Http2CodecUtil.connectionPrefaceBuf()));
      out.write(frame(FRAME_SETTINGS, 0, 0, new byte[0]));
      // DATA must belong to a stream: on stream 0 it is a connection error.
      out.write(frame(0x0, 0, 0, new byte[] {42}));

      assertThat(framesUntilClosed(broken))
          .contains("type 7 error " + Http2Error.PROTOCOL_ERROR.code());
    }
    // The event is emitted from the server's control executor, after the close the client saw.
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> events.stream().anyMatch(e -> e.kind() == TetherEvent.Kind.PROTOCOL_ERROR));
    assertOthersAreServed();
  }

  @Test
  void refusesAStreamWhoseHeadersExceedTheListSizeTheServerAnnounced() throws IOException {
    Http2Headers headers =
        new DefaultHttp2Headers()
            .method("POST")
            .scheme("http")
            .authority("127.0.0.1")
            .path("/" + InteropService.SERVICE + "/EmptyCall")
            .set("content-type", "application/grpc")
            .set("x-big", "x".repeat(9 * 1024));
    try (Socket greedy = connect()) {
      OutputStream out = greedy.getOutputStream();
      out.write(ByteBufUtil.getBytes(Http2CodecUtil.connectionPrefaceBuf()));
      out.write(frame(FRAME_SETTINGS, 0, 0, new byte[0]));
      out.write(frame(FRAME_HEADERS, END_STREAM_AND_HEADERS, 1, encode(headers)));

      List<String> answer = framesUntil(greedy, "type 3");
      assertThat(answer).last().asString().startsWith("type 3");
    }
    assertOthersAreServed();
  }

  private Socket connect() throws IOException {
    Socket s = new Socket("127.0.0.1", port());
    s.setSoTimeout(10_000);
    return s;
  }

  private static byte[] encode(Http2Headers headers) {
    ByteBuf block = Unpooled.buffer();
    try {
      // A lone encoder knows no peer's limit, so it writes what a well-behaved client would not.
      new DefaultHttp2HeadersEncoder(Http2HeadersEncoder.NEVER_SENSITIVE, false)
          .encodeHeaders(1, headers, block);
      return ByteBufUtil.getBytes(block);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    } finally {
      block.release();
    }
  }

  private static byte[] frame(int type, int flags, int stream, byte[] payload) {
    ByteArrayOutputStream f = new ByteArrayOutputStream();
    f.write(payload.length >>> 16);
    f.write(payload.length >>> 8);
    f.write(payload.length);
    f.write(type);
    f.write(flags);
    f.write(stream >>> 24);
    f.write(stream >>> 16);
    f.write(stream >>> 8);
    f.write(stream);
    f.writeBytes(payload);
    return f.toByteArray();
  }

  /** Every frame the server sends until it closes the connection, as "type N" (GOAWAY: "error"). */
  private static List<String> framesUntilClosed(Socket socket) throws IOException {
    return framesUntil(socket, null);
  }

  /** The frames the server sends until one starts with {@code last}, or until it closes. */
  private static List<String> framesUntil(Socket socket, String last) throws IOException {
    DataInputStream in = new DataInputStream(socket.getInputStream());
    List<String> frames = new ArrayList<>();
    try {
      for (int i = 0; i < 100; i++) {
        int length = in.readUnsignedByte() << 16 | in.readUnsignedShort();
        int type = in.readUnsignedByte();
        in.readUnsignedByte();
        in.readInt();
        byte[] payload = in.readNBytes(length);
        String frame = "type " + type;
        if (type == FRAME_GOAWAY && payload.length >= 8) {
          frame += " error " + Integer.toUnsignedLong(Unpooled.wrappedBuffer(payload).getInt(4));
        }
        frames.add(frame);
        if (last != null && frame.startsWith(last)) {
          return frames;
        }
      }
    } catch (EOFException closed) {
      return frames;
    }
    return frames;
  }
}
