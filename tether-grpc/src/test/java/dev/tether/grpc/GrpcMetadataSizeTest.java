package dev.tether.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.CallOptions;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code maxInboundMetadataSize}: the header list a request may carry, 8 KiB by default as with
 * grpc-java, and larger when the server says so; grpc-java's own client sends a 16 KiB token.
 */
@Timeout(60)
class GrpcMetadataSizeTest {
  private static final Metadata.Key<String> TOKEN =
      Metadata.Key.of("x-token", Metadata.ASCII_STRING_MARSHALLER);

  private TetherGrpcServerFixture grpc;
  private ManagedChannel channel;

  private void start(GrpcServices services) {
    grpc = TetherGrpcServerFixture.start(services.service(new InteropService().definition()));
    channel = grpc.channel();
  }

  @AfterEach
  void stop() throws InterruptedException {
    if (grpc != null) {
      grpc.close();
    }
  }

  private byte[] callWithToken(int size) {
    Metadata headers = new Metadata();
    headers.put(TOKEN, "t".repeat(size));
    return ClientCalls.blockingUnaryCall(
        ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(headers)),
        InteropService.UNARY,
        CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS),
        InteropService.text("hi"));
  }

  @Test
  void refusesARequestWhoseMetadataExceedsTheDefaultEightKibibytes() {
    start(TetherGrpc.server());

    assertThatThrownBy(() -> callWithToken(16 * 1024)).isInstanceOf(StatusRuntimeException.class);
    assertThat(InteropService.text(callWithToken(1024))).isEqualTo("hi");
  }

  @Test
  void servesLargerMetadataWhenTheServerAllowsIt() {
    start(TetherGrpc.server().maxInboundMetadataSize(64 * 1024));

    assertThat(InteropService.text(callWithToken(16 * 1024))).isEqualTo("hi");
  }

  @Test
  void aMetadataSizeThatIsNotPositiveIsRefusedWhenConfigured() {
    assertThatThrownBy(() -> TetherGrpc.server().maxInboundMetadataSize(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxInboundMetadataSize");
  }
}
