package dev.tether.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.ExecutionMode;
import dev.tether.TetherServer;
import io.grpc.CallOptions;
import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The response bytes one gRPC connection's calls may make the server hold
 * (maxOutboundBytesPerConnection): a service that sends in a loop without looking at {@code
 * isReady()} runs at the pace of a client that reads, and to a client that reads nothing it is
 * ended after the stall period (at once on the event loop), and the connection serves on; services
 * that send while ready are never held up by it.
 */
@Timeout(60)
class GrpcOutboundBudgetTest {
  private static final String SERVICE = "tether.testing.Outbound";
  private static final int MESSAGE = 1024;

  /** Far more than the budget: a naive service would make the server hold all of it. */
  private static final int NAIVE_MESSAGES = 16_384;

  private static final int READY_MESSAGES = 1024;
  private static final long BUDGET = 256 * 1024;

  /** Short, so a test sees its end soon; nothing here depends on how long it really is. */
  private static final Duration STALL = Duration.ofMillis(200);

  /** What the connection may hold: the budget, a call's ready threshold and one message more. */
  private static final long HELD_AT_MOST = BUDGET + OutboundMessages.READY_THRESHOLD + MESSAGE + 5;

  /** The client's stream and connection window: far below what the services send. */
  private static final int CLIENT_WINDOW = 64 * 1024;

  private static final MethodDescriptor<byte[], byte[]> NAIVE = streaming("Naive");
  private static final MethodDescriptor<byte[], byte[]> POLITE = streaming("Polite");

  private final AtomicInteger naiveSent = new AtomicInteger();
  private final CompletableFuture<Boolean> naiveContextCancelled = new CompletableFuture<>();
  private GrpcServices services;
  private TetherServer server;
  private ManagedChannel channel;

  private static MethodDescriptor<byte[], byte[]> streaming(String name) {
    return InteropService.STREAMING_OUTPUT.toBuilder()
        .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, name))
        .build();
  }

  /** Sends all its messages at once, as a service that calls onNext in a loop does. */
  private void naive(byte[] request, io.grpc.stub.StreamObserver<byte[]> out) {
    Context context = Context.current();
    for (int i = 0; i < NAIVE_MESSAGES; i++) {
      out.onNext(new byte[MESSAGE]);
      naiveSent.incrementAndGet();
    }
    context.addListener(c -> naiveContextCancelled.complete(c.isCancelled()), Runnable::run);
    out.onCompleted();
  }

  /** Sends while ready and resumes on each onReady. */
  private void polite(byte[] request, io.grpc.stub.StreamObserver<byte[]> out) {
    ServerCallStreamObserver<byte[]> observer = (ServerCallStreamObserver<byte[]>) out;
    AtomicInteger sent = new AtomicInteger();
    AtomicBoolean completed = new AtomicBoolean();
    observer.setOnReadyHandler(
        () -> {
          while (observer.isReady() && sent.get() < READY_MESSAGES) {
            observer.onNext(new byte[MESSAGE]);
            sent.incrementAndGet();
          }
          if (sent.get() == READY_MESSAGES && completed.compareAndSet(false, true)) {
            observer.onCompleted();
          }
        });
  }

  private void start(ExecutionMode mode) throws Exception {
    services =
        TetherGrpc.server()
            .service(
                ServerServiceDefinition.builder(SERVICE)
                    .addMethod(NAIVE, ServerCalls.asyncServerStreamingCall(this::naive))
                    .addMethod(POLITE, ServerCalls.asyncServerStreamingCall(this::polite))
                    .build())
            .service(new InteropService().definition())
            .maxOutboundBytesPerConnection(BUDGET)
            .maxOutboundStall(STALL);
    server = TetherGrpcServerFixture.serve(services, mode);
    channel =
        NettyChannelBuilder.forAddress("127.0.0.1", server.endpoints().get(0).port())
            .usePlaintext()
            .flowControlWindow(CLIENT_WINDOW)
            .build();
  }

  @AfterEach
  void stop() throws InterruptedException {
    if (channel != null) {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    if (server != null) {
      server.close();
    }
  }

  private ReadingCall call(MethodDescriptor<byte[], byte[]> method, int ask) {
    return ReadingCall.start(
        channel,
        method,
        new byte[0],
        ask,
        CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS));
  }

  @ParameterizedTest
  @EnumSource(
      value = ExecutionMode.class,
      names = {"EXECUTOR", "DIRECT", "SERIALIZED"})
  void aServiceThatIgnoresIsReadyIsEndedWhenItsClientReadsNothingAndTheConnectionServesOn(
      ExecutionMode mode) throws Exception {
    start(mode);

    ReadingCall reading = call(NAIVE, 0);

    assertThat(naiveContextCancelled.get(20, TimeUnit.SECONDS)).isTrue();
    assertThat(naiveSent.get()).isEqualTo(NAIVE_MESSAGES);
    // The client hears the end once it reads what reached it before.
    reading.call().request(Integer.MAX_VALUE);
    assertThat(reading.closed().get(20, TimeUnit.SECONDS).getCode())
        .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(services.protocol().outboundBytesPeakPerConnection())
        .isLessThanOrEqualTo(HELD_AT_MOST);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> services.protocol().outboundBytesHeld() == 0);
    byte[] answer =
        ClientCalls.blockingUnaryCall(
            channel,
            InteropService.UNARY,
            CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
            new byte[8]);
    assertThat(answer).hasSize(8);
  }

  @ParameterizedTest
  @EnumSource(
      value = ExecutionMode.class,
      names = {"EXECUTOR", "SERIALIZED"}) // VIRTUAL_THREADS needs Java 21
  void aServiceThatIgnoresIsReadyRunsAtThePaceOfAClientThatReadsAndHoldsNoMoreThanTheBudget(
      ExecutionMode mode) throws Exception {
    start(mode);

    ReadingCall reading = call(NAIVE, 1);

    assertThat(reading.closed().get(20, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
    assertThat(reading.read()).hasValue(NAIVE_MESSAGES);
    assertThat(services.protocol().outboundBytesPeakPerConnection())
        .isBetween(BUDGET - 2L * (MESSAGE + 5), HELD_AT_MOST);
  }

  @Test
  void callsThatSendWhileReadyAreNeverEndedThoughTogetherTheyHoldMoreThanTheBudget()
      throws Exception {
    start(ExecutionMode.EXECUTOR);
    List<ReadingCall> calls = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      calls.add(call(POLITE, 0));
    }
    // Each call fills its window share and its ready threshold: together past the budget.
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> services.protocol().outboundBytesHeld() > BUDGET);

    for (ReadingCall c : calls) {
      c.call().request(1);
    }
    for (ReadingCall c : calls) {
      assertThat(c.closed().get(20, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
      assertThat(c.read()).hasValue(READY_MESSAGES);
    }
  }
}
