package dev.tether.grpc;

import static dev.tether.grpc.InteropService.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.Tether;
import dev.tether.TetherServer;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Tether's gRPC channel against a Tether server that serves gRPC: a team may move its clients and
 * its services in either order. The same port keeps serving Tether's own protocol beside it.
 */
@Timeout(60)
class TetherChannelToTetherServerTest {
  private static final InteropService service = new InteropService();
  private static TetherServer server;
  private static Tether tether;
  private static ManagedChannel channel;

  @BeforeAll
  static void start() {
    server =
        TetherGrpc.server()
            .service(service.definition())
            .configure(
                TetherServer.builder()
                    .endpoints("tcp -h 127.0.0.1 -p 0")
                    .service("echo", (operation, payload, ctx) -> payload))
            .build()
            .start();
    tether = Tether.create();
    channel = TetherGrpc.channel(tether.proxy("interop:" + server.endpoints().get(0)));
  }

  @AfterAll
  static void stop() throws InterruptedException {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    tether.close();
    server.close();
  }

  private static CallOptions options() {
    return CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS);
  }

  @Test
  void aServerStreamMessageLargerThanTheWindowArrivesWholeFromATetherServer() {
    // Tether's server sends as grpc-java's does: the rest waits for window the client must give.
    Iterator<byte[]> blocking =
        ClientCalls.blockingServerStreamingCall(
            channel,
            InteropService.STREAMING_OUTPUT,
            CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
            text("2097152,3,3000000"));
    List<Integer> sizes = new ArrayList<>();
    blocking.forEachRemaining(m -> sizes.add(m.length));
    assertThat(sizes).containsExactly(2097152, 3, 3000000);
  }

  @Test
  void unaryCallsAndStatusesCrossFromTetherToTetherOverGrpc() {
    assertThat(
            text(
                ClientCalls.blockingUnaryCall(
                    channel, InteropService.UNARY, options(), text("over grpc"))))
        .isEqualTo("over grpc");
    assertThatThrownBy(
            () ->
                ClientCalls.blockingUnaryCall(
                    channel, InteropService.STATUS, options(), text("9 not now")))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
              assertThat(e.getStatus().getDescription()).isEqualTo("not now");
            });
  }

  @Test
  void aTetherClientInterceptorsAttemptHeadersReachTheGrpcServer() throws Exception {
    Tether traced =
        Tether.builder()
            .clientInterceptor(
                call ->
                    new dev.tether.ClientInterceptor.Listener() {
                      @Override
                      public void onAttempt(dev.tether.ClientInterceptor.AttemptStart attempt) {
                        attempt.putMetadata(
                            InteropService.ECHO_INITIAL.name(), "attempt " + attempt.number());
                      }
                    })
            .build();
    ManagedChannel own = TetherGrpc.channel(traced.proxy("interop:" + server.endpoints().get(0)));
    try {
      java.util.concurrent.atomic.AtomicReference<io.grpc.Metadata> headers =
          new java.util.concurrent.atomic.AtomicReference<>();
      io.grpc.Channel capturing =
          io.grpc.ClientInterceptors.intercept(
              own,
              io.grpc.stub.MetadataUtils.newCaptureMetadataInterceptor(
                  headers, new java.util.concurrent.atomic.AtomicReference<>()));

      ClientCalls.blockingUnaryCall(capturing, InteropService.UNARY, options(), text("t"));

      assertThat(headers.get().get(InteropService.ECHO_INITIAL)).isEqualTo("attempt 1");
    } finally {
      own.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      traced.close();
    }
  }

  @Test
  void theSamePortServesTetherCallsBesideTheGrpcConnection() {
    ClientCalls.blockingUnaryCall(channel, InteropService.UNARY, options(), text("first"));

    byte[] answer = tether.proxy("echo:" + server.endpoints().get(0)).invoke("any", text("tether"));

    assertThat(text(answer)).isEqualTo("tether");
  }

  @Test
  void theServersDeadlineIsTheOneTheChannelSent() throws Exception {
    service.contexts.clear();
    CallOptions shortly = CallOptions.DEFAULT.withDeadlineAfter(1, TimeUnit.SECONDS);
    assertThatThrownBy(
            () -> ClientCalls.blockingUnaryCall(channel, InteropService.SLEEP, shortly, text("z")))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED));
    assertThat(
            service
                .contexts
                .poll(20, TimeUnit.SECONDS)
                .getDeadline()
                .timeRemaining(TimeUnit.MILLISECONDS))
        .isLessThanOrEqualTo(1000);
  }
}
