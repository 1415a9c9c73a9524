package dev.tether.grpc;

import static dev.tether.grpc.InteropService.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tether.Tether;
import dev.tether.TetherServer;
import io.grpc.CallOptions;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerStreamTracer;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * gzip message encoding between Tether's channel and grpc-java's server, both ways: what the
 * server's stream tracer counts on the wire against what it counts uncompressed shows the messages
 * really went compressed; the headers show what each side said.
 */
@Timeout(60)
class TetherChannelCompressionTest {
  private static final Metadata.Key<String> ENCODING =
      Metadata.Key.of("grpc-encoding", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> ACCEPT_ENCODING =
      Metadata.Key.of("grpc-accept-encoding", Metadata.ASCII_STRING_MARSHALLER);

  private final Tether tether = Tether.create();
  private final List<Metadata> requestHeaders = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final AtomicLong inboundWire = new AtomicLong();
  private final AtomicLong inboundUncompressed = new AtomicLong();
  private final AtomicLong outboundWire = new AtomicLong();
  private final AtomicLong outboundUncompressed = new AtomicLong();
  private Server server;
  private ManagedChannel channel;

  private TetherServer tetherServer;

  @AfterEach
  void stop() throws InterruptedException {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    tether.close();
    if (server != null) {
      server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    if (tetherServer != null) {
      tetherServer.close();
    }
  }

  /** grpc-java's server, compressing its answers with gzip when {@code compress}. */
  private void serve(boolean compress) throws IOException {
    server =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(
                ServerInterceptors.intercept(
                    new InteropService().definition(), recordAndCompress(compress)))
            .addStreamTracerFactory(new Sizes())
            .build()
            .start();
    channel = TetherGrpc.channel(tether.proxy("interop:tcp -h 127.0.0.1 -p " + server.getPort()));
  }

  /** Records each call's request headers; compresses its answers with gzip when asked to. */
  private ServerInterceptor recordAndCompress(boolean compress) {
    return new ServerInterceptor() {
      @Override
      public <Q, A> ServerCall.Listener<Q> interceptCall(
          ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
        requestHeaders.add(headers);
        if (compress) {
          call.setCompression("gzip");
        }
        return next.startCall(call, headers);
      }
    };
  }

  /** Counts each call's message bytes on the wire and uncompressed, both ways. */
  private final class Sizes extends ServerStreamTracer.Factory {
    @Override
    public ServerStreamTracer newServerStreamTracer(String fullMethodName, Metadata headers) {
      return new ServerStreamTracer() {
        @Override
        public void inboundWireSize(long bytes) {
          inboundWire.addAndGet(bytes);
        }

        @Override
        public void inboundUncompressedSize(long bytes) {
          inboundUncompressed.addAndGet(bytes);
        }

        @Override
        public void outboundWireSize(long bytes) {
          outboundWire.addAndGet(bytes);
        }

        @Override
        public void outboundUncompressedSize(long bytes) {
          outboundUncompressed.addAndGet(bytes);
        }
      };
    }
  }

  private static CallOptions options() {
    return CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS);
  }

  private static byte[] compressible(int size) {
    byte[] b = new byte[size];
    Arrays.fill(b, (byte) 'a');
    return b;
  }

  @Test
  void aCallWithGzipCompressionSendsItsMessageGzipCompressedWithGrpcEncodingGzip()
      throws IOException {
    serve(false);
    byte[] request = compressible(64 * 1024);

    byte[] answer =
        ClientCalls.blockingUnaryCall(
            channel, InteropService.UNARY, options().withCompression("gzip"), request);

    assertThat(answer).isEqualTo(request);
    assertThat(requestHeaders.get(0).get(ENCODING)).isEqualTo("gzip");
    assertThat(inboundUncompressed.get()).isEqualTo(request.length);
    assertThat(inboundWire.get()).isLessThan(request.length / 10);
  }

  @Test
  void aClientStreamWithGzipCompressionSendsEveryMessageCompressed() throws Exception {
    serve(false);
    CompletableFuture<byte[]> total = new CompletableFuture<>();
    StreamObserver<byte[]> out =
        ClientCalls.asyncClientStreamingCall(
            channel.newCall(InteropService.STREAMING_INPUT, options().withCompression("gzip")),
            new StreamObserver<>() {
              @Override
              public void onNext(byte[] value) {
                total.complete(value);
              }

              @Override
              public void onError(Throwable t) {
                total.completeExceptionally(t);
              }

              @Override
              public void onCompleted() {}
            });
    for (int i = 0; i < 3; i++) {
      out.onNext(compressible(10_000));
    }
    out.onCompleted();

    assertThat(text(total.get(20, TimeUnit.SECONDS))).isEqualTo("30000");
    assertThat(requestHeaders.get(0).get(ENCODING)).isEqualTo("gzip");
    assertThat(inboundUncompressed.get()).isEqualTo(30_000);
    assertThat(inboundWire.get()).isLessThan(3_000);
  }

  @Test
  void theChannelAnnouncesGzipAndReadsTheAnswersOfAServerThatCompresses() throws IOException {
    serve(true);
    byte[] request = compressible(64 * 1024);

    byte[] unary = ClientCalls.blockingUnaryCall(channel, InteropService.UNARY, options(), request);
    List<Integer> streamed = new ArrayList<>();
    Iterator<byte[]> stream =
        ClientCalls.blockingServerStreamingCall(
            channel, InteropService.STREAMING_OUTPUT, options(), text("20000,30000"));
    stream.forEachRemaining(m -> streamed.add(m.length));

    assertThat(requestHeaders.get(0).get(ACCEPT_ENCODING)).contains("gzip");
    assertThat(unary).isEqualTo(request);
    assertThat(streamed).containsExactly(20_000, 30_000);
    assertThat(outboundUncompressed.get()).isEqualTo(request.length + 50_000);
    assertThat(outboundWire.get()).isLessThan(outboundUncompressed.get() / 10);
  }

  @Test
  void gzipCrossesBothWaysBetweenTetherChannelAndATetherServer() {
    tetherServer =
        TetherGrpc.server()
            .service(
                ServerInterceptors.intercept(
                    new InteropService().definition(), recordAndCompress(true)))
            .configure(TetherServer.builder().endpoints("tcp -h 127.0.0.1 -p 0"))
            .build()
            .start();
    channel = TetherGrpc.channel(tether.proxy("interop:" + tetherServer.endpoints().get(0)));
    byte[] request = compressible(64 * 1024);

    AtomicReference<Metadata> answerHeaders = new AtomicReference<>();
    AtomicReference<Metadata> answerTrailers = new AtomicReference<>();

    byte[] answer =
        ClientCalls.blockingUnaryCall(
            ClientInterceptors.intercept(
                channel,
                MetadataUtils.newCaptureMetadataInterceptor(answerHeaders, answerTrailers)),
            InteropService.UNARY,
            options().withCompression("gzip"),
            request);

    // The server reads gzip only when the flag and the header agree, and so does the channel.
    assertThat(answer).isEqualTo(request);
    assertThat(requestHeaders.get(0).get(ENCODING)).isEqualTo("gzip");
    assertThat(answerHeaders.get().get(ENCODING)).isEqualTo("gzip");
  }

  @Test
  void aCompressorTheChannelDoesNotKnowFailsTheCallInternalBeforeItIsSent() throws IOException {
    serve(false);

    StatusRuntimeException failed =
        catchThrowableOfType(
            StatusRuntimeException.class,
            () ->
                ClientCalls.blockingUnaryCall(
                    channel, InteropService.UNARY, options().withCompression("snappy"), text("x")));

    assertThat(failed.getStatus().getCode()).isEqualTo(Status.Code.INTERNAL);
    assertThat(failed.getStatus().getDescription()).contains("snappy");
    assertThat(requestHeaders).isEmpty();
  }
}
