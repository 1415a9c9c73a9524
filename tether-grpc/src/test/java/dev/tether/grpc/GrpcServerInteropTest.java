package dev.tether.grpc;

import static dev.tether.grpc.InteropService.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tether.Tether;
import dev.tether.TetherServer;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * grpc-java's own client (its Netty shaded away from ours) against a Tether server on a loopback
 * port, case by case after gRPC's interop test descriptions.
 */
@Timeout(60)
class GrpcServerInteropTest {
  private static final InteropService service = new InteropService();
  private static TetherGrpcServerFixture grpc;
  private static ManagedChannel channel;

  @BeforeAll
  static void start() {
    grpc =
        TetherGrpcServerFixture.start(
            TetherGrpc.server().service(service.definition()),
            TetherServer.builder().service("echo", (operation, payload, ctx) -> payload));
    channel = grpc.channel();
    // The class's first test (the bidi stream, by JUnit's order) would otherwise wait for the
    // channel's name resolution, connection and handshake in a cold JVM within its 10 s for an
    // answer: 13.5 s at load 40, the test failing before its call reached the server. The tests'
    // bounds are for the calls; the connection gets one of its own here.
    ClientCalls.blockingUnaryCall(
        channel,
        InteropService.EMPTY,
        CallOptions.DEFAULT.withWaitForReady().withDeadlineAfter(60, TimeUnit.SECONDS),
        new byte[0]);
  }

  @AfterAll
  static void stop() throws InterruptedException {
    grpc.close();
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
  void answersAnEmptyUnaryCall() {
    assertThat(unary(InteropService.EMPTY, new byte[0])).isEmpty();
  }

  @Test
  void echoesALargeUnaryOfAboutAMegabyteBothWays() {
    byte[] request = new byte[1_000_000];
    new Random(7).nextBytes(request);

    assertThat(unary(InteropService.UNARY, request)).isEqualTo(request);
  }

  @Test
  void receivesAClientStreamAndAnswersOnce() throws Exception {
    CompletableFuture<byte[]> answer = new CompletableFuture<>();
    StreamObserver<byte[]> requests =
        ClientCalls.asyncClientStreamingCall(
            channel.newCall(InteropService.STREAMING_INPUT, options()), observer(answer));
    for (int size : new int[] {27182, 8, 1828, 45904}) {
      requests.onNext(new byte[size]);
    }
    requests.onCompleted();

    assertThat(text(answer.get(10, TimeUnit.SECONDS))).isEqualTo("74922");
  }

  @Test
  void sendsAServerStreamOfTheRequestedSizes() {
    List<Integer> sizes = new ArrayList<>();
    ClientCalls.blockingServerStreamingCall(
            channel, InteropService.STREAMING_OUTPUT, options(), text("31415,9,2653,58979"))
        .forEachRemaining(m -> sizes.add(m.length));

    assertThat(sizes).containsExactly(31415, 9, 2653, 58979);
  }

  @Test
  void answersEachMessageOfABidiStreamBeforeTheNextIsSent() throws Exception {
    java.util.concurrent.BlockingQueue<byte[]> responses =
        new java.util.concurrent.LinkedBlockingQueue<>();
    CompletableFuture<Void> done = new CompletableFuture<>();
    StreamObserver<byte[]> requests =
        ClientCalls.asyncBidiStreamingCall(
            channel.newCall(InteropService.FULL_DUPLEX, options()),
            new RecordingObserver<>(responses, done));
    for (int size : new int[] {27182, 8, 1828, 45904}) {
      requests.onNext(new byte[size]);
      assertThat(responses.poll(10, TimeUnit.SECONDS)).hasSize(size);
    }
    requests.onCompleted();

    done.get(10, TimeUnit.SECONDS);
    assertThat(responses).isEmpty();
  }

  @Test
  void completesAnEmptyBidiStream() throws Exception {
    CompletableFuture<Void> done = new CompletableFuture<>();
    List<byte[]> responses = new java.util.concurrent.CopyOnWriteArrayList<>();
    StreamObserver<byte[]> requests =
        ClientCalls.asyncBidiStreamingCall(
            channel.newCall(InteropService.FULL_DUPLEX, options()),
            new RecordingObserver<>(responses, done));
    requests.onCompleted();

    done.get(10, TimeUnit.SECONDS);
    assertThat(responses).isEmpty();
  }

  @Test
  void echoesCustomInitialAndTrailingMetadataBinaryIncluded() {
    Metadata sent = new Metadata();
    sent.put(InteropService.ECHO_INITIAL, "test_initial_metadata_value");
    byte[] binary = {(byte) 0xab, (byte) 0xab, (byte) 0xab, 0, 1, (byte) 0xff};
    sent.put(InteropService.ECHO_TRAILING, binary);
    AtomicReference<Metadata> headers = new AtomicReference<>();
    AtomicReference<Metadata> trailers = new AtomicReference<>();

    io.grpc.Channel intercepted =
        io.grpc.ClientInterceptors.intercept(
            channel,
            MetadataUtils.newAttachHeadersInterceptor(sent),
            MetadataUtils.newCaptureMetadataInterceptor(headers, trailers));
    ClientCalls.blockingUnaryCall(intercepted, InteropService.UNARY, options(), new byte[314159]);

    assertThat(headers.get().get(InteropService.ECHO_INITIAL))
        .isEqualTo("test_initial_metadata_value");
    assertThat(trailers.get().get(InteropService.ECHO_TRAILING)).isEqualTo(binary);
  }

  @Test
  void carriesStatusCodeAndMessageWithWhitespaceAndCharactersBeyondTheBmp() {
    String message = "\t\ntest with whitespace\r\nand Unicode BMP ☺ and non-BMP 😈\t\n";

    assertThatThrownBy(() -> unary(InteropService.STATUS, text("2 " + message)))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNKNOWN);
              assertThat(e.getStatus().getDescription()).isEqualTo(message);
            });
  }

  @Test
  void answersUnimplementedForAnUnknownMethod() {
    MethodDescriptor<byte[], byte[]> unknown =
        InteropService.EMPTY.toBuilder()
            .setFullMethodName(
                MethodDescriptor.generateFullMethodName(InteropService.SERVICE, "Unimplemented"))
            .build();

    assertThatThrownBy(() -> unary(unknown, new byte[0]))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNIMPLEMENTED));
  }

  @Test
  void answersUnimplementedForAnUnknownService() {
    MethodDescriptor<byte[], byte[]> unknown =
        InteropService.EMPTY.toBuilder()
            .setFullMethodName("tether.testing.UnimplementedService/UnimplementedCall")
            .build();

    assertThatThrownBy(() -> unary(unknown, new byte[0]))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNIMPLEMENTED));
  }

  @Test
  void cancelAfterBeginCancelsTheServicesContext() throws Exception {
    CompletableFuture<byte[]> answer = new CompletableFuture<>();
    ClientCall<byte[], byte[]> call = channel.newCall(InteropService.STREAMING_INPUT, options());
    ClientCalls.asyncClientStreamingCall(call, observer(answer));
    Context serviceContext = service.contexts.poll(10, TimeUnit.SECONDS);
    assertThat(serviceContext).isNotNull();

    call.cancel("cancelled by the test", null);

    assertThatThrownBy(() -> answer.get(10, TimeUnit.SECONDS))
        .cause()
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.CANCELLED));
    await().atMost(Duration.ofSeconds(10)).until(serviceContext::isCancelled);
  }

  @Test
  void cancelAfterFirstResponseCancelsTheServicesContext() throws Exception {
    java.util.concurrent.BlockingQueue<byte[]> responses =
        new java.util.concurrent.LinkedBlockingQueue<>();
    CompletableFuture<Void> done = new CompletableFuture<>();
    ClientCall<byte[], byte[]> call = channel.newCall(InteropService.FULL_DUPLEX, options());
    StreamObserver<byte[]> requests =
        ClientCalls.asyncBidiStreamingCall(call, new RecordingObserver<>(responses, done));
    requests.onNext(new byte[27182]);
    assertThat(responses.poll(10, TimeUnit.SECONDS)).hasSize(27182);
    Context serviceContext = service.contexts.poll(10, TimeUnit.SECONDS);

    call.cancel("cancelled by the test", null);

    assertThatThrownBy(() -> done.get(10, TimeUnit.SECONDS))
        .cause()
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.CANCELLED));
    await().atMost(Duration.ofSeconds(10)).until(serviceContext::isCancelled);
  }

  @Test
  void timeoutOnASleepingServerEndsDeadlineExceededAndCancelsTheServicesContext() throws Exception {
    assertThatThrownBy(
            () ->
                ClientCalls.blockingUnaryCall(
                    channel,
                    InteropService.SLEEP,
                    CallOptions.DEFAULT.withDeadlineAfter(300, TimeUnit.MILLISECONDS),
                    new byte[271828]))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED));

    Context serviceContext = service.contexts.poll(10, TimeUnit.SECONDS);
    assertThat(serviceContext.getDeadline()).isNotNull();
    await().atMost(Duration.ofSeconds(10)).until(serviceContext::isCancelled);
  }

  @Test
  void refusesAMessageOverFourMebibytesWithResourceExhausted() {
    byte[] tooLarge = new byte[GrpcServices.DEFAULT_MAX_INBOUND_MESSAGE_SIZE + 1];

    assertThatThrownBy(() -> unary(InteropService.UNARY, tooLarge))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED));
    // The connection serves on.
    assertThat(unary(InteropService.UNARY, text("after"))).isEqualTo(text("after"));
  }

  @Test
  void servesATetherProxyAndAGrpcClientOnTheSamePortAtOnce() throws Exception {
    try (Tether tether = Tether.create()) {
      CompletableFuture<byte[]> viaTether =
          tether.proxy(grpc.server().proxyString("echo")).invokeAsync("echo", text("tether"));
      byte[] viaGrpc = unary(InteropService.UNARY, text("grpc"));

      assertThat(text(viaTether.get(10, TimeUnit.SECONDS))).isEqualTo("tether");
      assertThat(text(viaGrpc)).isEqualTo("grpc");
      assertThat(channel.authority()).endsWith(":" + grpc.server().endpoints().get(0).port());
    }
  }

  private static StreamObserver<byte[]> observer(CompletableFuture<byte[]> answer) {
    return new StreamObserver<>() {
      private byte[] last;

      @Override
      public void onNext(byte[] value) {
        last = value;
      }

      @Override
      public void onError(Throwable t) {
        answer.completeExceptionally(t);
      }

      @Override
      public void onCompleted() {
        answer.complete(last);
      }
    };
  }
}
