package dev.tether.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.common.util.concurrent.ListenableFuture;
import dev.tether.TetherServer;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The request bytes one gRPC connection may make the server hold (maxInboundBytesPerConnection): a
 * client that begins a maximum-size message on every stream and never finishes one is held to the
 * budget, the call whose bytes would pass it ends RESOURCE_EXHAUSTED, and other connections and
 * legitimate large requests are served.
 */
@Timeout(60)
class GrpcInboundBudgetTest {
  private static final int MESSAGE = GrpcServices.DEFAULT_MAX_INBOUND_MESSAGE_SIZE;
  private static final long BUDGET = GrpcServices.DEFAULT_MAX_INBOUND_BYTES_PER_CONNECTION;
  private static final int STREAMS = 12;

  private final InteropService service = new InteropService();
  private GrpcServices services;
  private TetherGrpcServerFixture grpc;

  private void start(GrpcServices configured) {
    services = configured;
    grpc =
        TetherGrpcServerFixture.start(
            configured,
            TetherServer.builder().maxConcurrentRequests(STREAMS),
            channel -> channel.maxInboundMessageSize(2 * MESSAGE));
  }

  @AfterEach
  void stop() throws InterruptedException {
    if (grpc != null) {
      grpc.close();
    }
  }

  /** A deadline counted from the call, not from the class's loading. */
  private static CallOptions options() {
    return CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS);
  }

  private int port() {
    return grpc.server().endpoints().get(0).port();
  }

  @Test
  void aClientLeavingANearlyWholeMessageOnEveryStreamIsHeldToTheBudgetWhileOthersAreServed()
      throws Exception {
    start(TetherGrpc.server().service(service.definition()));
    // Each stream's message declares the maximum size and lacks its last byte.
    ByteBuf unfinished =
        Unpooled.wrappedBuffer(RawHttp2Socket.message(new byte[MESSAGE]), 0, MESSAGE + 4);
    List<CompletableFuture<Boolean>> sends = new ArrayList<>();
    try (RawHttp2Client hostile = new RawHttp2Client(port())) {
      assertThat(hostile.next()).isEqualTo("settings");
      for (int i = 0; i < STREAMS; i++) {
        int stream = 3 + 2 * i;
        hostile.open(stream, RawHttp2Socket.request("UnaryCall"), false);
        sends.add(hostile.send(stream, unfinished.retainedSlice()));
      }
      // Every byte went out (or its stream ended first); a call is reset when the server reads
      // the DATA that would pass the budget, which may be after its client wrote the last byte.
      CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
      await().atMost(Duration.ofSeconds(10)).until(() -> service.contexts.size() == STREAMS);
      List<Context> calls = List.copyOf(service.contexts);
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () ->
                  services.protocol().inboundBytesHeld()
                      == (STREAMS - cancelled(calls)) * (MESSAGE + 4L));
      long reset = cancelled(calls);

      assertThat(services.protocol().inboundBytesPeakPerConnection()).isLessThanOrEqualTo(BUDGET);
      // None may be left: when the client's writes advance every stream evenly, each holds a
      // twelfth of the budget as it fills, and each stream's next DATA would pass it.
      assertThat(STREAMS - reset).isBetween(0L, BUDGET / (MESSAGE + 4));
      for (int told = 0; told < reset; ) {
        String frame = hostile.next();
        assertThat(frame).as("trailers of the %d streams reset", reset).isNotNull();
        if (frame.matches("headers \\d+ \\S+ 8")) {
          told++;
        }
      }
      byte[] large = new byte[MESSAGE];
      assertThat(
              ClientCalls.blockingUnaryCall(grpc.channel(), InteropService.UNARY, options(), large))
          .hasSize(MESSAGE);
      assertThat(cancelled(calls)).isEqualTo(reset);
    } finally {
      unfinished.release();
    }
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              assertThat(services.protocol().inboundBytesHeld()).isZero();
              assertThat(grpc.server().status().protocol("grpc").inFlight()).isZero();
            });
    assertThat(service.contexts).allMatch(Context::isCancelled);
  }

  private static long cancelled(List<Context> calls) {
    return calls.stream().filter(Context::isCancelled).count();
  }

  @Test
  void aFewMaximumSizeRequestsAtOnceFitTheDefaultBudget() throws Exception {
    start(TetherGrpc.server().service(service.definition()));
    ManagedChannel channel = grpc.channel();
    List<ListenableFuture<byte[]>> calls = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      byte[] request = new byte[MESSAGE];
      request[MESSAGE - 1] = (byte) i;
      calls.add(
          ClientCalls.futureUnaryCall(channel.newCall(InteropService.UNARY, options()), request));
    }
    for (int i = 0; i < calls.size(); i++) {
      byte[] answer = calls.get(i).get(30, TimeUnit.SECONDS);
      assertThat(answer).hasSize(MESSAGE);
      assertThat(answer[MESSAGE - 1]).isEqualTo((byte) i);
    }
    assertThat(services.protocol().inboundBytesPeakPerConnection()).isLessThanOrEqualTo(BUDGET);
    await().atMost(Duration.ofSeconds(10)).until(() -> services.protocol().inboundBytesHeld() == 0);
  }

  @Test
  void aCallWhoseBytesWouldPassTheBudgetEndsResourceExhaustedAndCancelsItsServiceContext()
      throws Exception {
    int message = 64 * 1024;
    long budget = 128 * 1024;
    MethodDescriptor<byte[], byte[]> hoard =
        InteropService.STREAMING_INPUT.toBuilder()
            .setFullMethodName(
                MethodDescriptor.generateFullMethodName("tether.testing.Budget", "Hoard"))
            .build();
    CompletableFuture<Context> started = new CompletableFuture<>();
    // Asks for no message: everything the client sends waits on the server, unread.
    ServerCallHandler<byte[], byte[]> neverReads =
        (call, headers) -> {
          started.complete(Context.current());
          return new ServerCall.Listener<>() {};
        };
    start(
        TetherGrpc.server()
            .service(
                ServerServiceDefinition.builder("tether.testing.Budget")
                    .addMethod(hoard, neverReads)
                    .build())
            .maxInboundMessageSize(message)
            .maxInboundBytesPerConnection(budget));

    CompletableFuture<Status> closed = new CompletableFuture<>();
    ClientCall<byte[], byte[]> call = grpc.channel().newCall(hoard, options());
    call.start(
        new ClientCall.Listener<>() {
          @Override
          public void onClose(Status status, Metadata trailers) {
            closed.complete(status);
          }
        },
        new Metadata());
    Context context = started.get(10, TimeUnit.SECONDS);
    for (int i = 0; i < 3; i++) {
      call.sendMessage(new byte[48 * 1024]);
    }
    call.halfClose();

    Status status = closed.get(20, TimeUnit.SECONDS);
    assertThat(status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(status.getDescription()).contains("limit of " + budget + " bytes");
    await().atMost(Duration.ofSeconds(10)).until(context::isCancelled);
    assertThat(services.protocol().inboundBytesPeakPerConnection()).isLessThanOrEqualTo(budget);
    await().atMost(Duration.ofSeconds(10)).until(() -> services.protocol().inboundBytesHeld() == 0);
  }

  @Test
  void aBudgetThatCannotHoldOneMaximumSizeMessageIsRefusedWhenTheServerIsConfigured() {
    GrpcServices tooSmall =
        TetherGrpc.server().maxInboundMessageSize(1024).maxInboundBytesPerConnection(1028);
    assertThatThrownBy(() -> tooSmall.configure(TetherServer.builder()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("1029");
    assertThatThrownBy(() -> TetherGrpc.server().maxInboundBytesPerConnection(0))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
