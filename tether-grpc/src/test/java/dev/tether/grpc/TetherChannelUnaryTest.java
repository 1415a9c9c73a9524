package dev.tether.grpc;

import static dev.tether.grpc.InteropService.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tether.Tether;
import io.grpc.CallOptions;
import io.grpc.ClientInterceptors;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Tether's gRPC channel against grpc-java's own server (its Netty shaded away from ours) on a
 * loopback port: unary calls through the stub adapters generated code uses and through generated
 * stubs, metadata both ways, statuses, deadlines as {@code grpc-timeout}, the drain of {@code
 * shutdown()}.
 */
@Timeout(60)
class TetherChannelUnaryTest {
  private static final InteropService service = new InteropService();
  private static Server server;
  private static Tether tether;
  private static ManagedChannel channel;

  @BeforeAll
  static void start() throws IOException {
    HealthStatusManager health = new HealthStatusManager();
    server =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(service.definition())
            .addService(health.getHealthService())
            .build()
            .start();
    tether = Tether.create();
    channel = TetherGrpc.channel(tether.proxy("interop:tcp -h 127.0.0.1 -p " + server.getPort()));
  }

  @AfterAll
  static void stop() throws InterruptedException {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    tether.close();
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }

  @BeforeEach
  void forgetContexts() {
    service.contexts.clear();
  }

  /** Every call of these tests ends within a bound, so a hang fails the test instead. */
  private static CallOptions options() {
    return CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS);
  }

  private static byte[] unary(MethodDescriptor<byte[], byte[]> method, byte[] request) {
    return ClientCalls.blockingUnaryCall(channel, method, options(), request);
  }

  @Test
  void unaryCallsAnswerThroughBlockingFutureAndAsyncStubs() throws Exception {
    assertThat(text(unary(InteropService.UNARY, text("blocking")))).isEqualTo("blocking");
    assertThat(
            text(
                ClientCalls.futureUnaryCall(
                        channel.newCall(InteropService.UNARY, options()), text("future"))
                    .get(20, TimeUnit.SECONDS)))
        .isEqualTo("future");
    List<byte[]> answers = new ArrayList<>();
    CompletableFuture<Void> done = new CompletableFuture<>();
    ClientCalls.asyncUnaryCall(
        channel.newCall(InteropService.UNARY, options()),
        text("async"),
        new RecordingObserver<>(answers, done));
    done.get(20, TimeUnit.SECONDS);
    assertThat(answers).singleElement().satisfies(a -> assertThat(text(a)).isEqualTo("async"));
  }

  @Test
  void aUnaryCallsAnswerReachesItsListenerInOneTask() throws Exception {
    AtomicInteger tasks = new AtomicInteger();
    Executor counting =
        task -> {
          tasks.incrementAndGet();
          task.run();
        };
    List<byte[]> answers = new ArrayList<>();
    CompletableFuture<Void> done = new CompletableFuture<>();

    ClientCalls.asyncUnaryCall(
        channel.newCall(InteropService.UNARY, options().withExecutor(counting)),
        text("once"),
        new RecordingObserver<>(answers, done));
    done.get(20, TimeUnit.SECONDS);

    assertThat(answers).singleElement().satisfies(a -> assertThat(text(a)).isEqualTo("once"));
    assertThat(tasks).hasValue(1); // the stub's request(n) needed none: the answer was not there
  }

  @Test
  void emptyAndLargeMessagesArriveWhole() {
    assertThat(unary(InteropService.EMPTY, new byte[0])).isEmpty();
    byte[] large = new byte[271_828];
    new java.util.Random(7).nextBytes(large);
    assertThat(unary(InteropService.UNARY, large)).isEqualTo(large);
  }

  @Test
  void generatedStubsOfEveryKindCallTheServer() throws Exception {
    HealthCheckRequest ask = HealthCheckRequest.getDefaultInstance();
    assertThat(
            HealthGrpc.newBlockingStub(channel)
                .withDeadlineAfter(20, TimeUnit.SECONDS)
                .check(ask)
                .getStatus())
        .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
    assertThat(
            HealthGrpc.newFutureStub(channel)
                .withDeadlineAfter(20, TimeUnit.SECONDS)
                .check(ask)
                .get(20, TimeUnit.SECONDS)
                .getStatus())
        .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
    List<HealthCheckResponse> answers = new ArrayList<>();
    CompletableFuture<Void> done = new CompletableFuture<>();
    HealthGrpc.newStub(channel)
        .withDeadlineAfter(20, TimeUnit.SECONDS)
        .check(ask, new RecordingObserver<>(answers, done));
    done.get(20, TimeUnit.SECONDS);
    assertThat(answers)
        .singleElement()
        .extracting(HealthCheckResponse::getStatus)
        .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
  }

  @Test
  void aGeneratedServerStreamingStubWatchesUntilCancelled() throws Exception {
    Context.CancellableContext watching = Context.current().withCancellation();
    try {
      java.util.Iterator<HealthCheckResponse> changes =
          watching.call(
              () ->
                  HealthGrpc.newBlockingStub(channel)
                      .withDeadlineAfter(20, TimeUnit.SECONDS)
                      .watch(HealthCheckRequest.getDefaultInstance()));
      assertThat(changes.next().getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
    } finally {
      watching.cancel(null);
    }
  }

  @Test
  void customMetadataTravelsBothWaysThroughInterceptors() {
    Metadata sent = new Metadata();
    sent.put(InteropService.ECHO_INITIAL, "test_initial_metadata_value");
    sent.put(InteropService.ECHO_TRAILING, new byte[] {(byte) 0xab, (byte) 0xab, (byte) 0xab});
    AtomicReference<Metadata> headers = new AtomicReference<>();
    AtomicReference<Metadata> trailers = new AtomicReference<>();
    io.grpc.Channel intercepted =
        ClientInterceptors.intercept(
            channel,
            MetadataUtils.newAttachHeadersInterceptor(sent),
            MetadataUtils.newCaptureMetadataInterceptor(headers, trailers));

    byte[] answer =
        ClientCalls.blockingUnaryCall(intercepted, InteropService.UNARY, options(), text("m"));

    assertThat(text(answer)).isEqualTo("m");
    assertThat(headers.get().get(InteropService.ECHO_INITIAL))
        .isEqualTo("test_initial_metadata_value");
    assertThat(trailers.get().get(InteropService.ECHO_TRAILING))
        .containsExactly((byte) 0xab, (byte) 0xab, (byte) 0xab);
  }

  @Test
  void theServersStatusAndMessageReachTheCaller() {
    String special = "\t\ntest with whitespace\r\nand Unicode BMP ☺ and non-BMP 😈\t\n";
    assertThatThrownBy(() -> unary(InteropService.STATUS, text("2 " + special)))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNKNOWN);
              assertThat(e.getStatus().getDescription()).isEqualTo(special);
            });
    assertThatThrownBy(() -> unary(InteropService.STATUS, text("5 not here")))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
              assertThat(e.getStatus().getDescription()).isEqualTo("not here");
            });
  }

  @Test
  void anUnknownMethodIsUnimplemented() {
    MethodDescriptor<byte[], byte[]> missing =
        InteropService.UNARY.toBuilder()
            .setFullMethodName("tether.testing.Interop/NoSuchCall")
            .build();
    assertThatThrownBy(() -> unary(missing, text("x")))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNIMPLEMENTED));
  }

  @Test
  void theDeadlineReachesTheServerAsGrpcTimeoutAndEndsTheCall() throws Exception {
    CallOptions shortly = CallOptions.DEFAULT.withDeadlineAfter(2, TimeUnit.SECONDS);
    assertThatThrownBy(
            () -> ClientCalls.blockingUnaryCall(channel, InteropService.SLEEP, shortly, text("z")))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED));
    Context onServer = service.contexts.poll(20, TimeUnit.SECONDS);
    Deadline serverDeadline = onServer.getDeadline();
    assertThat(serverDeadline).isNotNull();
    // The server heard at most the two seconds the caller gave, and more than nothing.
    assertThat(serverDeadline.timeRemaining(TimeUnit.MILLISECONDS)).isLessThanOrEqualTo(2000);
    await().atMost(java.time.Duration.ofSeconds(20)).until(onServer::isCancelled);
  }

  @Test
  void theEarlierOfTheContextAndCallOptionsDeadlinesBoundsTheCall() throws Exception {
    Context.CancellableContext soon =
        Context.current()
            .withDeadlineAfter(
                1,
                TimeUnit.SECONDS,
                java.util.concurrent.Executors.newSingleThreadScheduledExecutor());
    try {
      assertThatThrownBy(
              () ->
                  soon.call(
                      () ->
                          ClientCalls.blockingUnaryCall(
                              channel, InteropService.SLEEP, options(), text("z"))))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e ->
                  assertThat(e.getStatus().getCode())
                      .isIn(Status.Code.DEADLINE_EXCEEDED, Status.Code.CANCELLED));
    } finally {
      soon.cancel(null);
    }
    assertThat(
            service
                .contexts
                .poll(20, TimeUnit.SECONDS)
                .getDeadline()
                .timeRemaining(TimeUnit.MILLISECONDS))
        .isLessThanOrEqualTo(1000);
  }

  @Test
  void shutdownLetsRunningCallsFinishAndRefusesNewOnes() throws Exception {
    ManagedChannel own =
        TetherGrpc.channel(tether.proxy("interop:tcp -h 127.0.0.1 -p " + server.getPort()));
    CallOptions briefly = CallOptions.DEFAULT.withDeadlineAfter(1500, TimeUnit.MILLISECONDS);
    var running =
        ClientCalls.futureUnaryCall(own.newCall(InteropService.SLEEP, briefly), text("z"));
    service.contexts.poll(20, TimeUnit.SECONDS); // the call runs on the server

    own.shutdown();

    assertThat(own.isShutdown()).isTrue();
    assertThat(own.isTerminated()).isFalse();
    assertThatThrownBy(
            () -> ClientCalls.blockingUnaryCall(own, InteropService.UNARY, options(), text("x")))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
    // The running call was not cut short: it ends by its own deadline, then the channel ends.
    assertThatThrownBy(() -> running.get(20, TimeUnit.SECONDS))
        .hasCauseInstanceOf(StatusRuntimeException.class)
        .cause()
        .satisfies(
            e ->
                assertThat(((StatusRuntimeException) e).getStatus().getCode())
                    .isEqualTo(Status.Code.DEADLINE_EXCEEDED));
    assertThat(own.awaitTermination(20, TimeUnit.SECONDS)).isTrue();
  }
}
