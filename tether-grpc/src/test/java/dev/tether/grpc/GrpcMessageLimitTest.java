package dev.tether.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.TetherServer;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
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

  @Test
  void framesStillOnTheirWayToCallsTheServerEndedAreDroppedWithoutAResetEach() throws Exception {
    int streams = 6;
    // Each message declares twice the limit: the server ends its call on reading the prefix, while
    // the client's whole stream window of DATA (64 frames) is already on its way. A reset for each
    // such frame would be hundreds, which the server's own limit on resets sent ends the
    // connection for.
    byte[] tooLarge = RawHttp2Socket.message(new byte[2 * LIMIT]);
    List<CompletableFuture<Boolean>> sends = new ArrayList<>();
    try (RawHttp2Client client = new RawHttp2Client(grpc.server().endpoints().get(0).port())) {
      assertThat(client.next()).isEqualTo("settings");
      for (int i = 0; i < streams; i++) {
        int stream = 3 + 2 * i;
        client.open(stream, RawHttp2Socket.request("UnaryCall"), false);
        sends.add(client.send(stream, Unpooled.wrappedBuffer(tooLarge)));
      }
      CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
      // Whatever the late frames make the server send leaves before the answer to this ping.
      client.ping(42);
      List<String> seen = new ArrayList<>();
      for (String f = client.next(); f != null && !f.equals("ping-ack 42"); f = client.next()) {
        seen.add(f);
      }

      assertThat(seen).as(seen.toString()).noneMatch(f -> f.startsWith("goaway"));
      assertThat(seen).filteredOn(f -> f.startsWith("reset")).as(seen.toString()).hasSize(streams);
      assertThat(seen)
          .filteredOn(f -> f.matches("headers \\d+ \\S+ 8"))
          .as(seen.toString())
          .hasSize(streams);
    }
  }
}
