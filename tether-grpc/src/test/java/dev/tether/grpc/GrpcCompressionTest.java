package dev.tether.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.CallOptions;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** gzip message encoding, both ways, with grpc-java's client. */
@Timeout(60)
class GrpcCompressionTest {
  private static final Metadata.Key<String> ENCODING =
      Metadata.Key.of("grpc-encoding", Metadata.ASCII_STRING_MARSHALLER);

  private TetherGrpcServerFixture grpc;
  private ManagedChannel channel;

  /** Services choose gzip for their responses as with grpc-java's server: setCompression. */
  private static final class CompressResponses implements ServerInterceptor {
    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
        ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
      call.setCompression("gzip");
      return next.startCall(call, headers);
    }
  }

  @BeforeEach
  void start() {
    grpc =
        TetherGrpcServerFixture.start(
            TetherGrpc.server()
                .service(
                    ServerInterceptors.intercept(
                        new InteropService().definition(), new CompressResponses())));
    channel = grpc.channel();
  }

  @AfterEach
  void stop() throws InterruptedException {
    grpc.close();
  }

  private static CallOptions gzip() {
    return CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS).withCompression("gzip");
  }

  @Test
  void readsGzipRequestsAndAnswersInGzipWhenTheServiceAsks() {
    byte[] request = new byte[200_000];
    Arrays.fill(request, (byte) 'a');
    AtomicReference<Metadata> headers = new AtomicReference<>();
    AtomicReference<Metadata> trailers = new AtomicReference<>();

    byte[] answer =
        ClientCalls.blockingUnaryCall(
            ClientInterceptors.intercept(
                channel, MetadataUtils.newCaptureMetadataInterceptor(headers, trailers)),
            InteropService.UNARY,
            gzip(),
            request);

    assertThat(answer).isEqualTo(request);
    assertThat(headers.get().get(ENCODING)).isEqualTo("gzip");
  }

  @Test
  void refusesAGzipMessageThatInflatesBeyondTheLimitWithResourceExhausted() {
    // A few kilobytes on the wire, five mebibytes once inflated.
    byte[] bomb = new byte[5 * 1024 * 1024];

    assertThatThrownBy(
            () -> ClientCalls.blockingUnaryCall(channel, InteropService.UNARY, gzip(), bomb))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED));
  }
}
