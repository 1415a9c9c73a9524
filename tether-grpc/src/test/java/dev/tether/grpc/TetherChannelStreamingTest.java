package dev.tether.grpc;

import static dev.tether.grpc.InteropService.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.Tether;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Server streams through Tether's gRPC channel against grpc-java's own server: every message in
 * order, {@code request(n)} as HTTP/2 flow control, and a stream that loses its server ends
 * UNAVAILABLE saying how many messages arrived.
 */
@Timeout(60)
class TetherChannelStreamingTest {
  private final InteropService interop = new InteropService();
  private final CountingService counting = new CountingService("s");
  private Server server;
  private Tether tether;
  private ManagedChannel channel;

  @BeforeEach
  void start() throws IOException {
    server =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(interop.definition())
            .addService(counting.definition())
            .build()
            .start();
    tether = Tether.create();
    channel = TetherGrpc.channel(tether.proxy("streams:tcp -h 127.0.0.1 -p " + server.getPort()));
  }

  @AfterEach
  void stop() throws InterruptedException {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    tether.close();
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }

  private static CallOptions options() {
    return CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS);
  }

  @Test
  void aServerStreamMessageLargerThanTheWindowArrivesWhole() {
    // 2 MiB, twice the stream's and the connection's 1 MiB window, under the 4 MiB message limit:
    // its rest can come only if the bytes of a message in progress earn window as they arrive.
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
  void aServerStreamDeliversEveryMessageInOrderThroughBlockingAndAsyncStubs() throws Exception {
    Iterator<byte[]> blocking =
        ClientCalls.blockingServerStreamingCall(
            channel, InteropService.STREAMING_OUTPUT, options(), text("31415,9,2653,58979"));
    List<Integer> sizes = new ArrayList<>();
    blocking.forEachRemaining(m -> sizes.add(m.length));
    assertThat(sizes).containsExactly(31415, 9, 2653, 58979);

    List<byte[]> answers = new CopyOnWriteArrayList<>();
    CompletableFuture<Void> done = new CompletableFuture<>();
    ClientCalls.asyncServerStreamingCall(
        channel.newCall(InteropService.STREAMING_OUTPUT, options()),
        text("1,2,3"),
        new RecordingObserver<>(answers, done));
    done.get(20, TimeUnit.SECONDS);
    assertThat(answers).extracting(a -> a.length).containsExactly(1, 2, 3);
  }

  @Test
  void aStreamHearsOnlyItsOwnDeadlineNotTheProxysInvocationTimeoutWhichBoundsUnaryCalls()
      throws Exception {
    List<String> heard = new CopyOnWriteArrayList<>();
    ServerInterceptor recordDeadline =
        new ServerInterceptor() {
          @Override
          public <Q, A> ServerCall.Listener<Q> interceptCall(
              ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
            Deadline d = Context.current().getDeadline();
            heard.add(
                call.getMethodDescriptor().getBareMethodName()
                    + "="
                    + (d == null ? "none" : d.timeRemaining(TimeUnit.SECONDS) + "s"));
            return next.startCall(call, headers);
          }
        };
    Server recording =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(ServerInterceptors.intercept(interop.definition(), recordDeadline))
            .build()
            .start();
    // Far apart, and far longer than a first dial takes on a loaded machine (over 3 s seen):
    // what the server hears tells which of the two each call sent.
    ManagedChannel timed =
        TetherGrpc.channel(
            tether
                .proxy("timed:tcp -h 127.0.0.1 -p " + recording.getPort())
                .withInvocationTimeout(Duration.ofSeconds(30)));
    try {
      ClientCalls.blockingUnaryCall(timed, InteropService.EMPTY, CallOptions.DEFAULT, new byte[0]);
      ClientCalls.blockingServerStreamingCall(
              timed, InteropService.STREAMING_OUTPUT, CallOptions.DEFAULT, text("1,2"))
          .forEachRemaining(m -> {});
      ClientCalls.blockingServerStreamingCall(
              timed,
              InteropService.STREAMING_OUTPUT,
              CallOptions.DEFAULT.withDeadlineAfter(300, TimeUnit.SECONDS),
              text("1,2"))
          .forEachRemaining(m -> {});
    } finally {
      timed.shutdownNow();
      recording.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    assertThat(heard).hasSize(3);
    // The test's own 60 s timeout bounds how much of either deadline has passed.
    assertThat(secondsHeard(heard.get(0), "EmptyCall")).isBetween(0L, 30L);
    assertThat(heard.get(1)).isEqualTo("StreamingOutputCall=none");
    assertThat(secondsHeard(heard.get(2), "StreamingOutputCall")).isBetween(240L, 300L);
  }

  /** The seconds left of the deadline that {@code method} heard, as recorded "method=Ns". */
  private static long secondsHeard(String recorded, String method) {
    assertThat(recorded).matches(method + "=-?[0-9]+s");
    return Long.parseLong(recorded.substring(method.length() + 1, recorded.length() - 1));
  }

  @Test
  void aServerStreamOfOneEmptyMessageEndsOk() {
    MethodEnd end =
        open(
            CountingService.FLOOD.toBuilder()
                .setFullMethodName("tether.testing.Interop/StreamingOutputCall")
                .build(),
            10);
    end.call.sendMessage(text("0"));
    end.call.halfClose();
    assertThat(end.status.join().getCode()).isEqualTo(Status.Code.OK);
    assertThat(end.messages).hasSize(1); // "0": one empty message
  }

  @Test
  void requestIsFlowControlTheServerSendsOnlyWhatTheCallerMakesRoomFor() {
    MethodEnd end = open(CountingService.FLOOD, 1);
    end.call.sendMessage(text("go"));
    end.call.halfClose();
    await().atMost(Duration.ofSeconds(20)).until(() -> end.messages.size() == 1);

    // 4 MiB wait behind a 1 MiB window: the server stays well short of all of it.
    await()
        .during(Duration.ofMillis(500))
        .atMost(Duration.ofSeconds(10))
        .until(() -> counting.floodSent.get() < CountingService.FLOOD_COUNT);

    end.call.request(CountingService.FLOOD_COUNT);
    assertThat(end.status.join().getCode()).isEqualTo(Status.Code.OK);
    assertThat(end.messages).hasSize(CountingService.FLOOD_COUNT);
  }

  @Test
  void aStreamThatLosesItsServerEndsUnavailableSayingHowManyMessagesArrived() throws Exception {
    MethodEnd end = open(CountingService.TRICKLE, 100);
    end.call.sendMessage(text("go"));
    end.call.halfClose();
    await().atMost(Duration.ofSeconds(20)).until(() -> end.messages.size() == 3);

    server.shutdownNow();

    Status status = end.status.get(20, TimeUnit.SECONDS);
    assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(status.getDescription()).contains("after 3 messages arrived");
  }

  @Test
  void aClientStreamSendsEveryMessageAndGetsOneAnswer() throws Exception {
    List<byte[]> answers = new CopyOnWriteArrayList<>();
    CompletableFuture<Void> done = new CompletableFuture<>();
    io.grpc.stub.StreamObserver<byte[]> out =
        ClientCalls.asyncClientStreamingCall(
            channel.newCall(InteropService.STREAMING_INPUT, options()),
            new RecordingObserver<>(answers, done));
    for (int size : new int[] {27182, 8, 1828, 45904}) {
      out.onNext(new byte[size]);
    }
    out.onCompleted();

    done.get(20, TimeUnit.SECONDS);
    assertThat(answers).singleElement().satisfies(a -> assertThat(text(a)).isEqualTo("74922"));
  }

  @Test
  void aBidirectionalStreamAnswersEachMessageBeforeTheNextIsSent() throws Exception {
    MethodEnd end = open(InteropService.FULL_DUPLEX, 100);
    for (int i = 1; i <= 4; i++) {
      end.call.sendMessage(new byte[i * 1000]);
      int expected = i;
      // Ping-pong: the next message leaves only after the answer to this one came back.
      await().atMost(Duration.ofSeconds(20)).until(() -> end.messages.size() == expected);
    }
    end.call.halfClose();

    assertThat(end.status.get(20, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
    assertThat(end.messages).extracting(m -> m.length).containsExactly(1000, 2000, 3000, 4000);
  }

  @Test
  void anEmptyBidirectionalStreamEndsOk() throws Exception {
    MethodEnd end = open(InteropService.FULL_DUPLEX, 1);
    end.call.halfClose();

    assertThat(end.status.get(20, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
    assertThat(end.messages).isEmpty();
  }

  @Test
  void cancellingAfterTheFirstResponseEndsTheStreamCancelled() throws Exception {
    MethodEnd end = open(InteropService.FULL_DUPLEX, 100);
    end.call.sendMessage(new byte[31415]);
    await().atMost(Duration.ofSeconds(20)).until(() -> end.messages.size() == 1);

    end.call.cancel("enough", null);

    assertThat(end.status.get(20, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.CANCELLED);
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> interop.contexts.peek() != null && interop.contexts.peek().isCancelled());
  }

  @Test
  void aStreamsDeadlineEndsItDeadlineExceeded() throws Exception {
    ClientCall<byte[], byte[]> call =
        channel.newCall(
            InteropService.FULL_DUPLEX,
            CallOptions.DEFAULT.withDeadlineAfter(500, TimeUnit.MILLISECONDS));
    MethodEnd end = new MethodEnd(call);
    call.start(end, new Metadata());
    call.request(1);

    assertThat(end.status.get(20, TimeUnit.SECONDS).getCode())
        .isEqualTo(Status.Code.DEADLINE_EXCEEDED);
  }

  /** A started call of {@code method} whose listener asked for {@code firstRequest} messages. */
  private MethodEnd open(io.grpc.MethodDescriptor<byte[], byte[]> method, int firstRequest) {
    ClientCall<byte[], byte[]> call = channel.newCall(method, options());
    MethodEnd end = new MethodEnd(call);
    call.start(end, new Metadata());
    call.request(firstRequest);
    return end;
  }

  /** Records what a call's listener heard. */
  private static final class MethodEnd extends ClientCall.Listener<byte[]> {
    final ClientCall<byte[], byte[]> call;
    final List<byte[]> messages = new CopyOnWriteArrayList<>();
    final CompletableFuture<Status> status = new CompletableFuture<>();

    MethodEnd(ClientCall<byte[], byte[]> call) {
      this.call = call;
    }

    @Override
    public void onMessage(byte[] message) {
      messages.add(message);
    }

    @Override
    public void onClose(Status s, Metadata trailers) {
      status.complete(s);
    }
  }
}
