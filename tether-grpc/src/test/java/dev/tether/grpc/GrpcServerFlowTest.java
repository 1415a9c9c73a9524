package dev.tether.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.ExecutionMode;
import dev.tether.TetherServer;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What HTTP/2 flow control and the server's execution mode mean for a gRPC call: a service that
 * reads slowly slows its client, and DIRECT mode runs services on the event loop.
 */
@Timeout(60)
class GrpcServerFlowTest {
  private static final String SERVICE = "tether.testing.Flow";
  private static final int CHUNK = 64 * 1024;

  /** Client streaming; the service asks for one message, then for the rest when told to. */
  private static final MethodDescriptor<byte[], byte[]> HOLD =
      InteropService.STREAMING_INPUT.toBuilder()
          .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, "Hold"))
          .build();

  private final CompletableFuture<ServerCall<byte[], byte[]>> held = new CompletableFuture<>();
  private final AtomicLong received = new AtomicLong();
  private TetherServer server;
  private ManagedChannel channel;

  private void start(ExecutionMode mode) {
    ServerCallHandler<byte[], byte[]> hold =
        (call, headers) -> {
          call.request(1);
          held.complete(call);
          return new ServerCall.Listener<>() {
            @Override
            public void onMessage(byte[] message) {
              received.addAndGet(message.length);
            }

            @Override
            public void onHalfClose() {
              call.sendHeaders(new Metadata());
              call.sendMessage(InteropService.text(Long.toString(received.get())));
              call.close(Status.OK, new Metadata());
            }
          };
        };
    server =
        TetherGrpcServerFixture.serve(
            TetherGrpc.server()
                .service(ServerServiceDefinition.builder(SERVICE).addMethod(HOLD, hold).build())
                .service(new InteropService().definition()),
            mode);
    channel =
        ManagedChannelBuilder.forAddress("127.0.0.1", server.endpoints().get(0).port())
            .usePlaintext()
            .build();
  }

  @AfterEach
  void stop() throws InterruptedException {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    server.close();
  }

  @Test
  void aServiceThatReadsSlowlyStopsItsClientAtTheWindowAndThenGetsEveryByte() throws Exception {
    start(ExecutionMode.EXECUTOR);
    CompletableFuture<byte[]> answer = new CompletableFuture<>();
    ClientCall<byte[], byte[]> call =
        channel.newCall(HOLD, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS));
    call.start(
        new ClientCall.Listener<>() {
          @Override
          public void onMessage(byte[] message) {
            answer.complete(message);
          }

          @Override
          public void onClose(Status status, Metadata trailers) {
            if (!status.isOk()) {
              answer.completeExceptionally(status.asRuntimeException());
            }
          }
        },
        new Metadata());
    call.request(1);
    ServerCall<byte[], byte[]> serverCall = held.get(10, TimeUnit.SECONDS);
    long[] sent = {0};
    long limit = 200;

    // Sends while the client says it may; the server does not read, so its window runs out.
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () -> {
              while (call.isReady() && sent[0] < limit) {
                call.sendMessage(new byte[CHUNK]);
                sent[0]++;
              }
              return !call.isReady();
            });

    // The server held at most its window (1 MiB) that nobody asked for; the client kept the rest.
    assertThat(sent[0] * CHUNK).isLessThan(2L * GrpcConnection.WINDOW);
    serverCall.request(Integer.MAX_VALUE);
    call.halfClose();
    assertThat(InteropService.text(answer.get(20, TimeUnit.SECONDS)))
        .isEqualTo(Long.toString(sent[0] * CHUNK));
  }

  @Test
  void servesUnaryAndStreamingCallsOnTheEventLoopInDirectMode() {
    start(ExecutionMode.DIRECT);
    CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS);

    byte[] echoed =
        ClientCalls.blockingUnaryCall(
            channel, InteropService.UNARY, options, InteropService.text("direct"));
    int[] count = {0};
    ClientCalls.blockingServerStreamingCall(
            channel, InteropService.STREAMING_OUTPUT, options, InteropService.text("1,2,3"))
        .forEachRemaining(m -> count[0]++);

    assertThat(InteropService.text(echoed)).isEqualTo("direct");
    assertThat(count[0]).isEqualTo(3);
  }
}
