package dev.tether.grpc;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.ExecutionMode;
import dev.tether.TetherServer;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A gRPC call's completion (onComplete, then its context's end) reaches the service exactly once,
 * after the call's other events, however the server runs it and whatever the client does at the
 * call's end.
 */
@Timeout(60)
class GrpcCallCompletionTest {
  private static final String SERVICE = "tether.testing.Completion";

  /** Echoes its request; the request's text names the call in {@link #heard}. */
  private static final MethodDescriptor<byte[], byte[]> ECHO =
      MethodDescriptor.<byte[], byte[]>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, "Echo"))
          .setRequestMarshaller(TetherGrpc.rawBytes())
          .setResponseMarshaller(TetherGrpc.rawBytes())
          .build();

  /** What each call's listener heard, in order, by the call's name. */
  private final Map<String, Queue<String>> heard = new ConcurrentHashMap<>();

  private final AtomicInteger completions = new AtomicInteger();

  /** When each call's onComplete ran (System.nanoTime), by the call's name. */
  private final Map<String, CompletableFuture<Long>> completedAt = new ConcurrentHashMap<>();

  /** When set, every onComplete waits for it (a service whose completion blocks). */
  private volatile CountDownLatch completionGate;

  private final List<ManagedChannel> channels = new ArrayList<>();
  private TetherServer server;

  private ServerServiceDefinition service() {
    return ServerServiceDefinition.builder(SERVICE)
        .addMethod(
            ECHO,
            (call, headers) -> {
              call.request(1);
              return new Listener(call);
            })
        .build();
  }

  /** Records each event under the call's name, and the context's end after onComplete. */
  private final class Listener extends ServerCall.Listener<byte[]> {
    private final ServerCall<byte[], byte[]> call;
    private volatile Queue<String> events;
    private volatile String name;

    Listener(ServerCall<byte[], byte[]> call) {
      this.call = call;
    }

    @Override
    public void onMessage(byte[] message) {
      name = new String(message, UTF_8);
      events = heard.computeIfAbsent(name, n -> new ConcurrentLinkedQueue<>());
      events.add("message");
      Context.current().addListener(ended -> events.add("context ended"), Runnable::run);
      call.sendHeaders(new Metadata());
      call.sendMessage(message);
    }

    @Override
    public void onHalfClose() {
      events.add("half-close");
      call.close(Status.OK, new Metadata());
    }

    @Override
    public void onComplete() {
      events.add("complete");
      completedAt(name).complete(System.nanoTime());
      CountDownLatch gate = completionGate;
      if (gate != null) {
        try {
          gate.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      completions.incrementAndGet();
    }

    @Override
    public void onCancel() {
      if (events != null) {
        events.add("cancel");
      }
    }
  }

  private void start(ExecutionMode mode) {
    server = TetherGrpcServerFixture.serve(TetherGrpc.server().service(service()), mode);
  }

  private ManagedChannel connect() {
    ManagedChannel c =
        ManagedChannelBuilder.forAddress("127.0.0.1", server.endpoints().get(0).port())
            .usePlaintext()
            .build();
    channels.add(c);
    return c;
  }

  @AfterEach
  void stop() throws InterruptedException {
    CountDownLatch gate = completionGate;
    if (gate != null) {
      gate.countDown();
    }
    for (ManagedChannel c : channels) {
      c.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    if (server != null) {
      server.close();
    }
  }

  private static byte[] echo(ManagedChannel channel, String name) {
    return ClientCalls.blockingUnaryCall(channel, ECHO, CallOptions.DEFAULT, name.getBytes(UTF_8));
  }

  private CompletableFuture<Long> completedAt(String name) {
    return completedAt.computeIfAbsent(name, n -> new CompletableFuture<>());
  }

  private List<String> heardBy(String name) {
    return List.copyOf(heard.getOrDefault(name, new ConcurrentLinkedQueue<>()));
  }

  @ParameterizedTest
  @EnumSource(
      value = ExecutionMode.class,
      names = {"DIRECT", "SERIALIZED", "EXECUTOR"}) // VIRTUAL_THREADS needs Java 21: its own module
  void everyModeTellsTheServiceItsCallCompletedOnceAfterItsOtherEventsThenEndsItsContext(
      ExecutionMode mode) throws Exception {
    start(mode);
    ManagedChannel channel = connect();
    for (int i = 0; i < 20; i++) {
      echo(channel, "call " + i);
      completedAt("call " + i).get(5, TimeUnit.SECONDS);
    }

    await()
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(5))
        .untilAsserted(
            () ->
                assertThat(heard.values())
                    .hasSize(20)
                    .allSatisfy(
                        events ->
                            assertThat(events)
                                .containsExactly(
                                    "message", "half-close", "complete", "context ended")));
  }

  @Test
  void everyCompletionOfThousandsOfCallsOneAtATimeReachesAnOtherwiseIdleServer() {
    start(ExecutionMode.EXECUTOR);
    ManagedChannel channel = connect();
    int calls = 2000;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    int made = 0;
    while (made < calls && System.nanoTime() < deadline) {
      echo(channel, "call " + made);
      made++;
    }

    int expected = made;
    assertThat(made).isGreaterThan(100);
    await().atMost(Duration.ofSeconds(5)).until(() -> completions.get() == expected);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                heard.values().stream()
                    .allMatch(e -> e.stream().filter("context ended"::equals).count() == 1));
    assertThat(heard.values())
        .allSatisfy(e -> assertThat(e).filteredOn("complete"::equals).hasSize(1));
  }

  @Test
  void eachCompletionReachesAnIdleServerWithinMillisecondsWithoutANextCallToRideWith()
      throws Exception {
    start(ExecutionMode.EXECUTOR);
    ManagedChannel channel = connect();
    List<Long> waits = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      String name = "call " + i;
      echo(channel, name);
      long answered = System.nanoTime();
      // No next call comes until this one's completion arrived: only the lazy check can run it.
      long completed = completedAt(name).get(2, TimeUnit.SECONDS);
      waits.add(Math.max(0, completed - answered));
    }

    waits.sort(null);
    System.out.printf(
        "completion after the answer: median %d us, 99th %d us, max %d us%n",
        waits.get(50) / 1000, waits.get(98) / 1000, waits.get(99) / 1000);
    assertThat(waits.get(50)).isLessThan(TimeUnit.MILLISECONDS.toNanos(50));
  }

  @Test
  void completionsOfCallsOnManyConnectionsAllArriveWhileSomeConnectionsClose() throws Exception {
    start(ExecutionMode.EXECUTOR);
    List<Future<byte[]>> answers = new ArrayList<>();
    int connections = 12;
    for (int c = 0; c < connections; c++) {
      ManagedChannel channel = connect();
      for (int i = 0; i < 20; i++) {
        answers.add(
            ClientCalls.futureUnaryCall(
                channel.newCall(ECHO, CallOptions.DEFAULT),
                ("c" + c + " call " + i).getBytes(UTF_8)));
      }
    }
    for (int c = 0; c < connections; c += 2) {
      // Half the connections go once their calls are answered: their loops armed lazy checks.
      for (int i = 0; i < 20; i++) {
        answers.get(c * 20 + i).get(10, TimeUnit.SECONDS);
      }
      channels.get(c).shutdownNow();
    }
    for (Future<byte[]> answer : answers) {
      answer.get(10, TimeUnit.SECONDS);
    }

    await().atMost(Duration.ofSeconds(5)).until(() -> completions.get() == connections * 20);
  }

  @RepeatedTest(20)
  void aCompletionOfAClientThatLeftJustBeforeAGracefulShutdownStillReachesTheService()
      throws Exception {
    start(ExecutionMode.EXECUTOR);
    ManagedChannel channel = connect();
    echo(channel, "last call");
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);

    server.shutdownGracefully(Duration.ofSeconds(10));

    completedAt("last call").get(2, TimeUnit.SECONDS);
  }

  @Test
  void aServerClosedWithACompletionWaitingClosesAtOnce() {
    start(ExecutionMode.EXECUTOR);
    ManagedChannel channel = connect();
    echo(channel, "call");
    long started = System.nanoTime();

    CompletableFuture<Void> close = CompletableFuture.runAsync(server::close);

    await().atMost(Duration.ofSeconds(5)).until(close::isDone);
    assertThat(close).isCompleted();
    assertThat(System.nanoTime() - started).isLessThan(TimeUnit.SECONDS.toNanos(5));
    assertThat(completions.get()).isLessThanOrEqualTo(1);
  }

  @Test
  void aClientThatResetsItsStreamRightAfterTheTrailersLeavesTheServiceOneEnd() throws Exception {
    start(ExecutionMode.EXECUTOR);
    ManagedChannel channel = connect();
    int calls = 200;
    for (int i = 0; i < calls; i++) {
      String name = "call " + i;
      ClientCall<byte[], byte[]> call = channel.newCall(ECHO, CallOptions.DEFAULT);
      CompletableFuture<Status> closed = new CompletableFuture<>();
      call.start(
          new ClientCall.Listener<>() {
            @Override
            public void onMessage(byte[] message) {
              call.cancel("gone", null); // as the trailers arrive
            }

            @Override
            public void onClose(Status status, Metadata trailers) {
              closed.complete(status);
            }
          },
          new Metadata());
      call.request(1);
      call.sendMessage(name.getBytes(UTF_8));
      call.halfClose();
      closed.get(10, TimeUnit.SECONDS);
    }

    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                heard.size() == calls
                    && heard.values().stream().allMatch(e -> e.contains("context ended")));
    assertThat(heard.values())
        .allSatisfy(
            events ->
                assertThat(events)
                    .filteredOn(e -> e.equals("complete") || e.equals("cancel"))
                    .hasSize(1));
  }

  @Test
  void aCallWhoseDeadlinePassesAsItEndsHearsExactlyOneEnd() throws Exception {
    start(ExecutionMode.EXECUTOR);
    ManagedChannel channel = connect();
    int calls = 100;
    for (int i = 0; i < calls; i++) {
      try {
        ClientCalls.blockingUnaryCall(
            channel,
            ECHO,
            CallOptions.DEFAULT.withDeadlineAfter(200 + (i % 10) * 100, TimeUnit.MICROSECONDS),
            ("call " + i).getBytes(UTF_8));
      } catch (StatusRuntimeException deadline) {
        // Either way the server heard one end.
      }
    }

    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> heard.values().stream().allMatch(e -> e.contains("context ended")));
    assertThat(heard.values())
        .allSatisfy(
            events ->
                assertThat(events)
                    .filteredOn(e -> e.equals("complete") || e.equals("cancel"))
                    .hasSize(1));
  }

  @Test
  void aCompletionThatBlocksHoldsUpNoOtherCallsCompletion() {
    start(ExecutionMode.EXECUTOR);
    completionGate = new CountDownLatch(1);
    ManagedChannel channel = connect();
    echo(channel, "blocks");
    await().atMost(Duration.ofSeconds(5)).until(() -> heardBy("blocks").contains("complete"));

    for (int i = 0; i < 5; i++) {
      echo(connect(), "other " + i);
    }

    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                heard.keySet().stream()
                    .filter(n -> n.startsWith("other"))
                    .allMatch(n -> heardBy(n).contains("complete")));
    assertThat(completions).hasValue(0); // all of them wait at the gate, each on its own thread
    completionGate.countDown();
    await().atMost(Duration.ofSeconds(5)).until(() -> completions.get() == 6);
  }
}
