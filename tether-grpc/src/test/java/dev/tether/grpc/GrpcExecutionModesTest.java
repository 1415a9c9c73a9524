package dev.tether.grpc;

import static dev.tether.grpc.InteropService.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.ExecutionMode;
import dev.tether.TetherServer;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The server's execution mode places gRPC calls as it places Tether's own. */
@Timeout(60)
class GrpcExecutionModesTest {
  private static final String SERVICE = "tether.testing.Modes";

  /** Answers the name of the thread the service ran on. */
  private static final MethodDescriptor<byte[], byte[]> WHERE = unary("Where");

  /** Holds its thread until the test releases a permit, then answers. */
  private static final MethodDescriptor<byte[], byte[]> HOLD = unary("Hold");

  private final Semaphore permits = new Semaphore(0);
  private final AtomicInteger running = new AtomicInteger();
  private final AtomicInteger started = new AtomicInteger();
  private final AtomicInteger mostAtOnce = new AtomicInteger();
  private final List<ManagedChannel> channels = new ArrayList<>();
  private TetherServer server;

  private static MethodDescriptor<byte[], byte[]> unary(String name) {
    return MethodDescriptor.<byte[], byte[]>newBuilder()
        .setType(MethodDescriptor.MethodType.UNARY)
        .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, name))
        .setRequestMarshaller(TetherGrpc.rawBytes())
        .setResponseMarshaller(TetherGrpc.rawBytes())
        .build();
  }

  private ServerServiceDefinition service() {
    return ServerServiceDefinition.builder(SERVICE)
        .addMethod(
            WHERE,
            ServerCalls.asyncUnaryCall(
                (req, out) -> {
                  out.onNext(text(Thread.currentThread().getName()));
                  out.onCompleted();
                }))
        .addMethod(
            HOLD,
            ServerCalls.asyncUnaryCall(
                (req, out) -> {
                  started.incrementAndGet();
                  mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
                  try {
                    permits.acquire();
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  running.decrementAndGet();
                  out.onNext(req);
                  out.onCompleted();
                }))
        .build();
  }

  private void start(ExecutionMode mode) {
    server = TetherGrpcServerFixture.serve(TetherGrpc.server().service(service()), mode);
  }

  /** A new client, so a new connection. */
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
    permits.release(100);
    for (ManagedChannel c : channels) {
      c.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    server.close();
  }

  private static String where(ManagedChannel channel) {
    return text(ClientCalls.blockingUnaryCall(channel, WHERE, CallOptions.DEFAULT, new byte[0]));
  }

  private static Future<byte[]> hold(ManagedChannel channel) {
    return ClientCalls.futureUnaryCall(channel.newCall(HOLD, CallOptions.DEFAULT), new byte[] {1});
  }

  @Test
  void directModeRunsAGrpcCallOnItsConnectionsEventLoop() {
    start(ExecutionMode.DIRECT);
    assertThat(where(connect())).startsWith("tether-server");
  }

  @Test
  void executorModeRunsAConnectionsGrpcCallsSideBySideOnServiceThreads() throws Exception {
    start(ExecutionMode.EXECUTOR);
    ManagedChannel channel = connect();
    assertThat(where(channel)).startsWith("tether-service");

    Future<byte[]> first = hold(channel);
    Future<byte[]> second = hold(channel);
    await().atMost(Duration.ofSeconds(10)).until(() -> running.get() == 2);
    permits.release(2);
    assertThat(first.get(10, TimeUnit.SECONDS)).containsExactly(1);
    assertThat(second.get(10, TimeUnit.SECONDS)).containsExactly(1);
  }

  @Test
  void serializedModeRunsOneConnectionsGrpcCallsOneAtATimeWithoutHoldingUpOthers()
      throws Exception {
    start(ExecutionMode.SERIALIZED);
    ManagedChannel channel = connect();
    assertThat(where(channel)).startsWith("tether-service");

    Future<byte[]> first = hold(channel);
    await().atMost(Duration.ofSeconds(10)).until(() -> started.get() == 1);
    Future<byte[]> second = hold(channel);
    // The second call arrived (it counts in flight) but waits behind the first.
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> server.status().protocol("grpc").inFlight() == 2);
    assertThat(started).hasValue(1);

    // Another connection's call is not held up by it.
    Future<byte[]> elsewhere = hold(connect());
    await().atMost(Duration.ofSeconds(10)).until(() -> running.get() == 2);

    permits.release(3);
    assertThat(first.get(10, TimeUnit.SECONDS)).containsExactly(1);
    assertThat(second.get(10, TimeUnit.SECONDS)).containsExactly(1);
    assertThat(elsewhere.get(10, TimeUnit.SECONDS)).containsExactly(1);
    assertThat(started).hasValue(3);
  }
}
