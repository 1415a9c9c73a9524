package dev.tether.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.TetherServer;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The default message limit (4 MiB) on real sockets: a request one byte above it is refused with
 * RESOURCE_EXHAUSTED on its own stream while its client is still sending, and the connection serves
 * on.
 */
@Timeout(60)
class GrpcMessageLimitTest {
  private static final int LIMIT = GrpcServices.DEFAULT_MAX_INBOUND_MESSAGE_SIZE;

  private TetherGrpcServerFixture grpc;
  private ManagedChannel channel;

  @BeforeEach
  void start() {
    grpc =
        TetherGrpcServerFixture.start(
            TetherGrpc.server().service(new InteropService().definition()),
            TetherServer.builder(),
            channel -> channel.maxInboundMessageSize(2 * LIMIT));
    channel = grpc.channel();
  }

  @AfterEach
  void stop() throws InterruptedException {
    grpc.close();
  }

  @Test
  void aRequestOneByteAboveTheDefaultLimitIsRefusedAndTheConnectionServesOn() {
    CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS);
    for (int i = 0; i < 2; i++) {
      assertThatThrownBy(
              () ->
                  ClientCalls.blockingUnaryCall(
                      channel, InteropService.UNARY, options, new byte[LIMIT + 1]))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED));
    }

    assertThat(
            ClientCalls.blockingUnaryCall(channel, InteropService.UNARY, options, new byte[LIMIT]))
        .hasSize(LIMIT);
  }
}
