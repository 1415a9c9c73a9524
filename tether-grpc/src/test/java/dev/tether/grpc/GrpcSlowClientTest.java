package dev.tether.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.ExecutionMode;
import dev.tether.TetherServer;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A client that reads slowly holds back a service that sends while its call is ready, in every
 * execution mode: what the server keeps for it stays within the client's window and the call's
 * ready threshold, however fast the service's thread loops.
 */
@Timeout(60)
class GrpcSlowClientTest {
  private static final String SERVICE = "tether.testing.Slow";
  private static final int MESSAGE = 1024;
  private static final int MESSAGES = 4096;

  /** The client's stream and connection window: far below what the service would send. */
  private static final int CLIENT_WINDOW = 64 * 1024;

  private static final MethodDescriptor<byte[], byte[]> FLOOD =
      InteropService.STREAMING_OUTPUT.toBuilder()
          .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, "Flood"))
          .build();

  private final AtomicInteger sent = new AtomicInteger();
  private final AtomicBoolean heldBack = new AtomicBoolean();
  private TetherServer server;
  private ManagedChannel channel;

  /** Sends while ready, resumes on each onReady, and says when readiness stopped it. */
  private ServerServiceDefinition flood() {
    return ServerServiceDefinition.builder(SERVICE)
        .addMethod(
            FLOOD,
            ServerCalls.asyncServerStreamingCall(
                (request, out) -> {
                  ServerCallStreamObserver<byte[]> observer =
                      (ServerCallStreamObserver<byte[]>) out;
                  AtomicBoolean completed = new AtomicBoolean();
                  observer.setOnReadyHandler(
                      () -> {
                        heldBack.set(false);
                        while (observer.isReady() && sent.get() < MESSAGES) {
                          observer.onNext(new byte[MESSAGE]);
                          sent.incrementAndGet();
                        }
                        if (sent.get() < MESSAGES) {
                          heldBack.set(true);
                        } else if (completed.compareAndSet(false, true)) {
                          observer.onCompleted();
                        }
                      });
                }))
        .build();
  }

  @AfterEach
  void stop() throws InterruptedException {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    server.close();
  }

  @ParameterizedTest
  @EnumSource(
      value = ExecutionMode.class,
      names = {"EXECUTOR", "DIRECT", "SERIALIZED"})
  void aSlowClientHoldsBackAServiceThatSendsWhileReady(ExecutionMode mode) throws Exception {
    server = TetherGrpcServerFixture.serve(TetherGrpc.server().service(flood()), mode);
    channel =
        NettyChannelBuilder.forAddress("127.0.0.1", server.endpoints().get(0).port())
            .usePlaintext()
            .flowControlWindow(CLIENT_WINDOW)
            .build();
    AtomicInteger read = new AtomicInteger();
    CompletableFuture<Status> closed = new CompletableFuture<>();
    ClientCall<byte[], byte[]> call =
        channel.newCall(FLOOD, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS));
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
    call.request(8);

    await().atMost(Duration.ofSeconds(20)).until(() -> read.get() == 8 && heldBack.get());

    // Written but unread: at most the client's window, the threshold and a message in flight.
    long kept = (long) (sent.get() - read.get()) * (MESSAGE + 5);
    assertThat(kept)
        .isLessThanOrEqualTo(CLIENT_WINDOW + OutboundMessages.READY_THRESHOLD + 2L * MESSAGE);
    call.request(MESSAGES);
    assertThat(closed.get(20, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
    assertThat(read.get()).isEqualTo(MESSAGES);
  }
}
