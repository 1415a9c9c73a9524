package dev.tether.grpc;

import static dev.tether.grpc.RawHttp2Socket.DATA;
import static dev.tether.grpc.RawHttp2Socket.END_STREAM;
import static dev.tether.grpc.RawHttp2Socket.HEADERS;
import static dev.tether.grpc.RawHttp2Socket.RST_STREAM;
import static dev.tether.grpc.RawHttp2Socket.WINDOW_UPDATE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.ExecutionMode;
import dev.tether.TetherServer;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A gRPC connection's response budget under a hostile client and at each change of a waiting send's
 * state: whatever ends a call whose service waits in its send (the client's cancel, its deadline,
 * the client or the server going away) releases the service's thread and gives back every byte, and
 * one stream's client reading it or not decides that stream's fate only.
 */
@Timeout(60)
class GrpcOutboundBudgetRaceTest {
  private static final String SERVICE = "tether.testing.OutboundRace";
  private static final long BUDGET = 64 * 1024;
  private static final int MESSAGE = 1024;

  /** So long that only what a test does, never the stall, can end a waiting send. */
  private static final Duration NEVER = Duration.ofSeconds(600);

  private static final Duration STALL = Duration.ofMillis(200);

  /** Request: how many messages, and their size; sent in a loop, never looking at isReady(). */
  private static final MethodDescriptor<byte[], byte[]> SEND =
      InteropService.STREAMING_OUTPUT.toBuilder()
          .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, "Send"))
          .build();

  /** Sends in a loop from its onReady handler, and again from its onCancel handler. */
  private static final MethodDescriptor<byte[], byte[]> FROM_HANDLERS =
      SEND.toBuilder()
          .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, "FromHandlers"))
          .build();

  /** Services still inside their send loop. */
  private final AtomicInteger sending = new AtomicInteger();

  /** The thread of the last service that entered its send loop. */
  private volatile Thread sender;

  /** Whether the last service to leave its send loop left it interrupted. */
  private volatile boolean leftInterrupted;

  /** Services that entered their send loop. */
  private final AtomicInteger started = new AtomicInteger();

  private final InteropService interop = new InteropService();
  private GrpcServices services;
  private TetherServer server;
  private final List<ManagedChannel> channels = new ArrayList<>();

  private static byte[] request(int count, int size) {
    return ByteBuffer.allocate(8).putInt(count).putInt(size).array();
  }

  private void send(byte[] request, StreamObserver<byte[]> out) {
    ByteBuffer r = ByteBuffer.wrap(request);
    int count = r.getInt();
    int size = r.getInt();
    Context context = Context.current();
    ServerCallStreamObserver<byte[]> observer = (ServerCallStreamObserver<byte[]>) out;
    if (request.length > 8) {
      observer.setCompression("gzip");
    }
    sender = Thread.currentThread();
    sending.incrementAndGet();
    started.incrementAndGet();
    try {
      for (int i = 0; i < count && !context.isCancelled(); i++) {
        out.onNext(new byte[size]);
      }
      if (!context.isCancelled()) {
        out.onCompleted();
      }
    } finally {
      leftInterrupted = Thread.interrupted();
      sending.decrementAndGet();
    }
  }

  private void fromHandlers(byte[] request, StreamObserver<byte[]> out) {
    ServerCallStreamObserver<byte[]> observer = (ServerCallStreamObserver<byte[]>) out;
    Context context = Context.current();
    observer.setOnCancelHandler(
        () -> {
          for (int i = 0; i < 1024; i++) {
            observer.onNext(new byte[MESSAGE]);
          }
        });
    observer.setOnReadyHandler(
        () -> {
          sending.incrementAndGet();
          try {
            while (!context.isCancelled()) {
              observer.onNext(new byte[MESSAGE]);
            }
          } finally {
            sending.decrementAndGet();
          }
        });
  }

  private void start(Duration stall, ExecutionMode mode) throws Exception {
    services =
        TetherGrpc.server()
            .service(
                ServerServiceDefinition.builder(SERVICE)
                    .addMethod(SEND, ServerCalls.asyncServerStreamingCall(this::send))
                    .addMethod(
                        FROM_HANDLERS, ServerCalls.asyncServerStreamingCall(this::fromHandlers))
                    .build())
            .service(interop.definition())
            .maxOutboundBytesPerConnection(BUDGET)
            .maxOutboundStall(stall);
    server = TetherGrpcServerFixture.serve(services, mode);
  }

  private ManagedChannel channel(int window) {
    ManagedChannel channel =
        NettyChannelBuilder.forAddress("127.0.0.1", server.endpoints().get(0).port())
            .usePlaintext()
            .flowControlWindow(window)
            .build();
    channels.add(channel);
    return channel;
  }

  @AfterEach
  void stop() throws InterruptedException {
    for (ManagedChannel channel : channels) {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    if (server != null) {
      server.close();
    }
  }

  private static ReadingCall call(
      ManagedChannel channel, byte[] request, int ask, CallOptions options) {
    return ReadingCall.start(channel, SEND, request, ask, options);
  }

  private static ReadingCall call(ManagedChannel channel, byte[] request, int ask) {
    return call(channel, request, ask, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS));
  }

  private void awaitSendsWaiting(int sends) {
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> services.protocol().outboundSendsWaiting() == sends);
  }

  private void awaitNothingHeldOrWaiting() {
    await().atMost(Duration.ofSeconds(10)).until(() -> sending.get() == 0);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                services.protocol().outboundBytesHeld() == 0
                    && services.protocol().outboundSendsWaiting() == 0);
  }

  private void assertServesUnary(ManagedChannel channel) {
    byte[] answer =
        ClientCalls.blockingUnaryCall(
            channel,
            InteropService.UNARY,
            CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
            new byte[8]);
    assertThat(answer).hasSize(8);
  }

  @Test
  void aServiceWaitingInItsSendIsReleasedWhenItsClientCancels() throws Exception {
    start(NEVER, ExecutionMode.EXECUTOR);
    ManagedChannel channel = channel(64 * 1024);
    ReadingCall reading = call(channel, request(1_000_000, MESSAGE), 0);
    awaitSendsWaiting(1);

    reading.call().cancel("gone", null);

    awaitNothingHeldOrWaiting();
    assertServesUnary(channel);
  }

  @Test
  void aServiceWaitingInItsSendIsReleasedWhenItsDeadlinePasses() throws Exception {
    start(NEVER, ExecutionMode.EXECUTOR);
    ManagedChannel channel = channel(64 * 1024);
    ReadingCall reading =
        call(
            channel,
            request(1_000_000, MESSAGE),
            0,
            CallOptions.DEFAULT.withDeadlineAfter(500, TimeUnit.MILLISECONDS));

    assertThat(reading.closed().get(10, TimeUnit.SECONDS).getCode())
        .isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    awaitNothingHeldOrWaiting();
    assertServesUnary(channel);
  }

  @Test
  void aServiceWaitingInItsSendIsReleasedWhenItsClientVanishes() throws Exception {
    start(NEVER, ExecutionMode.EXECUTOR);
    try (RawHttp2Socket client = new RawHttp2Socket(server.endpoints().get(0).port())) {
      // No window for any stream: everything the service sends stays on the server.
      client.handshake(new byte[] {0, 4, 0, 0, 0, 0});
      client.headers(1, sendHeaders(), false);
      client.write(DATA, END_STREAM, 1, RawHttp2Socket.message(request(1_000_000, MESSAGE)));
      awaitSendsWaiting(1);

      client.reset();
    }

    await().atMost(Duration.ofSeconds(10)).until(() -> sending.get() == 0);
    assertServesUnary(channel(64 * 1024));
  }

  @Test
  void closingTheServerReleasesServicesWaitingInTheirSends() throws Exception {
    start(NEVER, ExecutionMode.EXECUTOR);
    ManagedChannel channel = channel(64 * 1024);
    for (int i = 0; i < 4; i++) {
      call(channel, request(1_000_000, MESSAGE), 0);
    }
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> services.protocol().outboundSendsWaiting() >= 1);

    CompletableFuture<Void> closed = CompletableFuture.runAsync(server::close);

    closed.get(10, TimeUnit.SECONDS);
    await().atMost(Duration.ofSeconds(10)).until(() -> sending.get() == 0);
  }

  @Test
  void manyCallsWaitingOnOneConnectionAllFinishOnceTheirClientReads() throws Exception {
    start(NEVER, ExecutionMode.EXECUTOR);
    ManagedChannel channel = channel(64 * 1024);
    int calls = 12;
    int messages = 256;
    List<ReadingCall> readings = new ArrayList<>();
    for (int i = 0; i < calls; i++) {
      readings.add(call(channel, request(messages, MESSAGE), 0));
    }
    awaitSendsWaiting(calls);

    for (ReadingCall r : readings) {
      r.call().request(1);
    }

    for (ReadingCall r : readings) {
      assertThat(r.closed().get(20, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
      assertThat(r.read()).hasValue(messages);
    }
    awaitNothingHeldOrWaiting();
  }

  @Test
  void messagesLargerThanTheBudgetReachAClientThatReadsThem() throws Exception {
    start(STALL, ExecutionMode.EXECUTOR);
    ManagedChannel channel = channel(1024 * 1024);
    int messages = 16;

    ReadingCall reading = call(channel, request(messages, (int) (BUDGET * 3 / 2)), 1);

    assertThat(reading.closed().get(20, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
    assertThat(reading.read()).hasValue(messages);
    awaitNothingHeldOrWaiting();
  }

  @Test
  void gzipResponsesOfANaiveServiceGiveBackEveryByteTheyTook() throws Exception {
    start(STALL, ExecutionMode.EXECUTOR);
    ManagedChannel channel = channel(64 * 1024);
    byte[] gzip = ByteBuffer.allocate(9).putInt(2048).putInt(4 * MESSAGE).array();

    ReadingCall reading = call(channel, gzip, 1);

    assertThat(reading.closed().get(20, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
    assertThat(reading.read()).hasValue(2048);
    awaitNothingHeldOrWaiting();
  }

  private static io.netty.handler.codec.http2.Http2Headers sendHeaders() {
    return RawHttp2Socket.request("Send").path("/" + SERVICE + "/Send");
  }

  /** An unsigned 31-bit increment for a WINDOW_UPDATE. */
  private static byte[] increment(int bytes) {
    return ByteBuffer.allocate(4).putInt(bytes).array();
  }

  /**
   * A raw client that gives window to its last stream only, as it reads, and none to the ones it
   * opened before (1, 3 and on), which each hold their ready threshold on the server: together more
   * than the budget. Reads until {@code untilEnded} streams ended; what ended each.
   */
  private Map<Integer, String> readOneStreamOnly(int stuck, int messages, int untilEnded)
      throws Exception {
    Map<Integer, String> ends = new HashMap<>();
    try (RawHttp2Socket client = new RawHttp2Socket(server.endpoints().get(0).port())) {
      client.handshake(new byte[] {0, 4, 0, 0, 0, 0});
      client.write(WINDOW_UPDATE, 0, 0, increment(1 << 30));
      for (int i = 0; i < stuck; i++) {
        int stream = 1 + 2 * i;
        client.headers(stream, sendHeaders(), false);
        client.write(DATA, END_STREAM, stream, RawHttp2Socket.message(request(1_000_000, MESSAGE)));
      }
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> services.protocol().outboundBytesHeld() > BUDGET);
      int read = 1 + 2 * stuck;
      client.headers(read, sendHeaders(), false);
      client.write(DATA, END_STREAM, read, RawHttp2Socket.message(request(messages, MESSAGE)));
      client.write(WINDOW_UPDATE, 0, read, increment(16 * 1024));
      long bytes = 0;
      for (int i = 0; i < 1_000_000 && ends.size() < untilEnded; i++) {
        RawHttp2Socket.Frame f;
        try {
          f = client.readFrame();
        } catch (java.io.IOException e) {
          throw new AssertionError("the server went quiet; ended so far: " + ends, e);
        }
        if (f.type() == DATA && f.stream() == read && f.payload().length > 0) {
          bytes += f.payload().length;
          client.write(WINDOW_UPDATE, 0, read, increment(f.payload().length));
        } else if (f.type() == RST_STREAM) {
          ends.put(f.stream(), "reset " + ByteBuffer.wrap(f.payload()).getInt());
        } else if (f.type() == HEADERS && (f.flags() & END_STREAM) != 0) {
          ends.put(f.stream(), "trailers after " + bytes);
        }
      }
    }
    return ends;
  }

  @Test
  void aNaiveCallWhoseClientReadsItIsServedThoughOtherStreamsOnItsConnectionAreStuck()
      throws Exception {
    start(STALL, ExecutionMode.EXECUTOR);
    int messages = 512;

    Map<Integer, String> ends = readOneStreamOnly(4, messages, 5);

    assertThat(ends).containsEntry(9, "trailers after " + messages * (MESSAGE + 5L));
  }

  @Test
  void streamsTheirClientNeverReadsAreEndedAfterTheStallThoughAnotherStreamIsRead()
      throws Exception {
    start(STALL, ExecutionMode.EXECUTOR);
    int stuck = 4;

    Map<Integer, String> ends = readOneStreamOnly(stuck, 1_000_000, stuck);

    for (int i = 0; i < stuck; i++) {
      assertThat(ends).containsEntry(1 + 2 * i, "reset " + OutboundMessages.OVERSENT.code());
    }
    assertThat(ends).doesNotContainKey(1 + 2 * stuck);
    await().atMost(Duration.ofSeconds(10)).until(() -> sending.get() == 0);
  }

  @Test
  void aServiceSendingFromItsOnReadyAndOnCancelHandlersIsReleasedAndGivesBackEveryByte()
      throws Exception {
    start(NEVER, ExecutionMode.EXECUTOR);
    ManagedChannel channel = channel(64 * 1024);
    ClientCall<byte[], byte[]> call =
        channel.newCall(FROM_HANDLERS, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS));
    call.start(new ClientCall.Listener<>() {}, new Metadata());
    call.sendMessage(new byte[0]);
    call.halfClose();
    awaitSendsWaiting(1);

    call.cancel("gone", null);

    awaitNothingHeldOrWaiting();
    assertServesUnary(channel);
  }

  @Test
  void aHostileClientsUnreadStreamsHoldAtMostTheBoundWhileAnotherClientIsServed() throws Exception {
    start(NEVER, ExecutionMode.EXECUTOR);
    ManagedChannel hostile = channel(64 * 1024);
    int streams = 64;
    for (int i = 0; i < streams; i++) {
      call(hostile, request(1_000_000, MESSAGE), 0);
    }
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> services.protocol().outboundSendsWaiting() == streams);

    ManagedChannel polite = channel(64 * 1024);
    assertServesUnary(polite);
    ReadingCall reading = call(polite, request(1024, MESSAGE), 1);
    assertThat(reading.closed().get(20, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
    assertThat(reading.read()).hasValue(1024);

    assertThat(services.protocol().outboundBytesPeakPerConnection())
        .isLessThanOrEqualTo(BUDGET + streams * (OutboundMessages.READY_THRESHOLD + MESSAGE + 5L));
    hostile.shutdownNow();
    awaitNothingHeldOrWaiting();
  }

  @Test
  void aHostileClientsUnreadStreamsAreAllEndedAfterTheStallAndTheirThreadsReleased()
      throws Exception {
    start(STALL, ExecutionMode.EXECUTOR);
    ManagedChannel hostile = channel(64 * 1024);
    int streams = 64;
    List<ReadingCall> readings = new ArrayList<>();
    for (int i = 0; i < streams; i++) {
      readings.add(call(hostile, request(1_000_000, MESSAGE), 0));
    }

    await().atMost(Duration.ofSeconds(10)).until(() -> started.get() == streams);

    awaitNothingHeldOrWaiting();
    // Each client hears the end once it reads what reached it before.
    for (ReadingCall r : readings) {
      r.call().request(Integer.MAX_VALUE);
      assertThat(r.closed().get(20, TimeUnit.SECONDS).getCode())
          .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    }
    assertServesUnary(hostile);
  }

  /** A client that reads {@code burst} messages at a time, pausing {@code pause} between bursts. */
  private ReadingCall slowCall(ManagedChannel channel, int messages, int burst, Duration pause) {
    java.util.concurrent.ScheduledExecutorService timer =
        java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
    AtomicInteger read = new AtomicInteger();
    CompletableFuture<Status> closed = new CompletableFuture<>();
    ClientCall<byte[], byte[]> call =
        channel.newCall(SEND, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS));
    call.start(
        new ClientCall.Listener<>() {
          @Override
          public void onMessage(byte[] message) {
            if (read.incrementAndGet() % burst == 0 && !pause.isZero()) {
              timer.schedule(() -> call.request(burst), pause.toNanos(), TimeUnit.NANOSECONDS);
            }
          }

          @Override
          public void onClose(Status status, Metadata trailers) {
            timer.shutdown();
            closed.complete(status);
          }
        },
        new Metadata());
    call.sendMessage(request(messages, MESSAGE));
    call.halfClose();
    call.request(burst);
    return new ReadingCall(call, read, closed);
  }

  @Test
  void aClientThatPausesShorterThanTheStallBetweenReadsIsServedToTheEnd() throws Exception {
    start(Duration.ofMillis(500), ExecutionMode.EXECUTOR);
    ManagedChannel channel = channel(64 * 1024);

    ReadingCall reading = slowCall(channel, 1024, 64, Duration.ofMillis(40));

    assertThat(reading.closed().get(20, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
    assertThat(reading.read()).hasValue(1024);
    awaitNothingHeldOrWaiting();
  }

  @Test
  void aClientThatReadsSomeThenStopsHasItsNaiveCallEndedAfterTheStall() throws Exception {
    start(STALL, ExecutionMode.EXECUTOR);
    ManagedChannel channel = channel(64 * 1024);

    ReadingCall reading = slowCall(channel, 1_000_000, 256, Duration.ZERO);
    await().atMost(Duration.ofSeconds(10)).until(() -> reading.read().get() == 256);

    awaitNothingHeldOrWaiting();
    reading.call().request(Integer.MAX_VALUE);
    assertThat(reading.closed().get(20, TimeUnit.SECONDS).getCode())
        .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    awaitNothingHeldOrWaiting();
  }

  @Test
  void inSerializedModeACallWaitingInItsSendHoldsUpItsConnectionOnlyUntilTheStall()
      throws Exception {
    start(STALL, ExecutionMode.SERIALIZED);
    ManagedChannel channel = channel(64 * 1024);
    ReadingCall stuck = call(channel, request(1_000_000, MESSAGE), 0);
    await().atMost(Duration.ofSeconds(10)).until(() -> started.get() == 1);

    assertServesUnary(channel);
    assertServesUnary(channel(64 * 1024));

    stuck.call().request(Integer.MAX_VALUE);
    assertThat(stuck.closed().get(20, TimeUnit.SECONDS).getCode())
        .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    awaitNothingHeldOrWaiting();
  }

  @Test
  void aGracefulShutdownWithAServiceWaitingInItsSendEndsAfterTheStallNotTheGrace()
      throws Exception {
    start(STALL, ExecutionMode.EXECUTOR);
    ReadingCall stuck = call(channel(64 * 1024), request(1_000_000, MESSAGE), 0);
    await().atMost(Duration.ofSeconds(10)).until(() -> started.get() == 1);

    CompletableFuture<Void> shutDown =
        CompletableFuture.runAsync(() -> server.shutdownGracefully(Duration.ofSeconds(50)));

    shutDown.get(20, TimeUnit.SECONDS);
    assertThat(sending).hasValue(0);
    stuck.call().request(Integer.MAX_VALUE);
    assertThat(stuck.closed().get(20, TimeUnit.SECONDS).getCode())
        .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
  }

  @Test
  void callsCancelledWhileTheirLargeOrGzipResponsesAreWrittenGiveBackEveryByte() throws Exception {
    start(NEVER, ExecutionMode.EXECUTOR);
    ManagedChannel channel = channel(64 * 1024);
    int calls = 48;
    List<ReadingCall> readings = new ArrayList<>();
    for (int i = 0; i < calls; i++) {
      // Messages of a frame or more go to the encoder uncopied; every third call gzips them.
      int size = i % 2 == 0 ? 20 * 1024 : 3 * MESSAGE;
      byte[] request =
          ByteBuffer.allocate(i % 3 == 0 ? 9 : 8).putInt(1_000_000).putInt(size).array();
      readings.add(call(channel, request, 1 + i % 7));
    }
    await().atMost(Duration.ofSeconds(20)).until(() -> started.get() == calls);

    for (int i = 0; i < calls; i++) {
      ReadingCall r = readings.get(i);
      int readAtLeast = i % 5;
      await()
          .pollDelay(Duration.ZERO)
          .pollInterval(Duration.ofMillis(2))
          .atMost(Duration.ofSeconds(10))
          .until(() -> r.read().get() >= readAtLeast);
      r.call().cancel("gone", null);
    }

    awaitNothingHeldOrWaiting();
    assertServesUnary(channel);
  }

  @Test
  void interruptingAServiceWaitingInItsSendEndsItsCallAndKeepsTheInterrupt() throws Exception {
    start(NEVER, ExecutionMode.EXECUTOR);
    ManagedChannel channel = channel(64 * 1024);
    ReadingCall reading = call(channel, request(1_000_000, MESSAGE), 0);
    awaitSendsWaiting(1);

    sender.interrupt();

    awaitNothingHeldOrWaiting();
    assertThat(leftInterrupted).isTrue();
    reading.call().request(Integer.MAX_VALUE);
    assertThat(reading.closed().get(10, TimeUnit.SECONDS).getCode())
        .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertServesUnary(channel);
  }

  @Test
  void anEchoToAClientThatSendsButNeverReadsIsEndedAndGivesBackBothWays() throws Exception {
    start(STALL, ExecutionMode.EXECUTOR);
    ManagedChannel channel = channel(64 * 1024);
    CompletableFuture<Status> closed = new CompletableFuture<>();
    ClientCall<byte[], byte[]> call =
        channel.newCall(
            InteropService.FULL_DUPLEX,
            CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS));
    call.start(
        new ClientCall.Listener<>() {
          @Override
          public void onClose(Status status, Metadata trailers) {
            closed.complete(status);
          }
        },
        new Metadata());
    // Far more than the budget, and more than the server lets the client send unasked.
    for (int i = 0; i < 2048; i++) {
      call.sendMessage(new byte[MESSAGE]);
    }

    Context echo = interop.contexts.poll(10, TimeUnit.SECONDS);
    await().atMost(Duration.ofSeconds(10)).until(echo::isCancelled);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                services.protocol().outboundSendsWaiting() == 0
                    && services.protocol().outboundBytesHeld() == 0
                    && services.protocol().inboundBytesHeld() == 0);
    call.request(Integer.MAX_VALUE);
    assertThat(closed.get(10, TimeUnit.SECONDS).getCode())
        .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertServesUnary(channel);
  }
}
