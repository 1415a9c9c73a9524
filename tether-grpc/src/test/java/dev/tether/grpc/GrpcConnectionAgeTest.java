package dev.tether.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.TetherServer;
import dev.tether.observe.TetherEvent;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code tether.server.maxConnectionAge} on gRPC connections: an aged connection gets gRPC's
 * two-phase GOAWAY, its call in flight finishes, and the client's next call goes on a new one.
 */
@Timeout(60)
class GrpcConnectionAgeTest {
  private static final String SERVICE = "tether.testing.Age";

  /** Sends one message, then the second and the end when the test says. */
  private static final MethodDescriptor<byte[], byte[]> HELD =
      InteropService.STREAMING_OUTPUT.toBuilder()
          .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, "Held"))
          .build();

  private final CompletableFuture<Void> release = new CompletableFuture<>();
  private final List<TetherEvent> events = new CopyOnWriteArrayList<>();
  private TetherServer server;
  private ManagedChannel channel;

  @AfterEach
  void stop() throws InterruptedException {
    release.complete(null);
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    server.close();
  }

  private long aged() {
    return events.stream().filter(e -> e.kind() == TetherEvent.Kind.CONNECTION_AGED).count();
  }

  @Test
  void anAgedConnectionDrainsWithGoAwayAndItsCallInFlightFinishes() throws Exception {
    ServerServiceDefinition held =
        ServerServiceDefinition.builder(SERVICE)
            .addMethod(
                HELD,
                ServerCalls.asyncServerStreamingCall(
                    (request, out) -> {
                      out.onNext(InteropService.text("first"));
                      release.thenRun(
                          () -> {
                            out.onNext(InteropService.text("second"));
                            out.onCompleted();
                          });
                    }))
            .build();
    server =
        TetherGrpc.server()
            .service(held)
            .service(new InteropService().definition())
            .configure(
                TetherServer.builder()
                    .endpoints("tcp -h 127.0.0.1 -p 0")
                    .property("tether.server.maxConnectionAge", "1s")
                    .listener(events::add))
            .build()
            .start();
    channel =
        ManagedChannelBuilder.forAddress("127.0.0.1", server.endpoints().get(0).port())
            .usePlaintext()
            .build();
    AtomicInteger read = new AtomicInteger();
    CompletableFuture<Status> closed = new CompletableFuture<>();
    ClientCall<byte[], byte[]> call =
        channel.newCall(HELD, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS));
    call.start(
        new ClientCall.Listener<>() {
          @Override
          public void onMessage(byte[] message) {
            read.incrementAndGet();
          }

          @Override
          public void onClose(Status status, Metadata trailers) {
            closed.complete(status);
          }
        },
        new Metadata());
    call.sendMessage(new byte[0]);
    call.halfClose();
    call.request(2);
    await().atMost(Duration.ofSeconds(20)).until(() -> read.get() == 1);

    await().atMost(Duration.ofSeconds(20)).until(() -> aged() >= 1);
    release.complete(null);

    assertThat(closed.get(20, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
    assertThat(read.get()).isEqualTo(2);
    byte[] echoed =
        ClientCalls.blockingUnaryCall(
            channel,
            InteropService.UNARY,
            CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS),
            InteropService.text("next"));
    assertThat(InteropService.text(echoed)).isEqualTo("next");
  }
}
