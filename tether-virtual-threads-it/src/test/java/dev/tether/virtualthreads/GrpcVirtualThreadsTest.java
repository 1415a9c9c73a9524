package dev.tether.virtualthreads;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tether.Attempt;
import dev.tether.ExecutionMode;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherException;
import dev.tether.TetherServer;
import dev.tether.grpc.TetherGrpc;
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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** gRPC calls on a VIRTUAL_THREADS server: each runs on a virtual thread of its own, at once. */
class GrpcVirtualThreadsTest {
  private static final MethodDescriptor<byte[], byte[]> WAIT =
      MethodDescriptor.<byte[], byte[]>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName("tether.testing.Virtual/Wait")
          .setRequestMarshaller(TetherGrpc.rawBytes())
          .setResponseMarshaller(TetherGrpc.rawBytes())
          .build();

  /**
   * Each call blocks until all of them have arrived: only a server that runs them side by side, a
   * thread each, answers them all before the wait gives up.
   */
  @Test
  void aVirtualThreadServerRunsBlockingGrpcCallsAtOnceOnVirtualThreads() throws Exception {
    int calls = 300;
    CountDownLatch arrived = new CountDownLatch(calls);
    ServerServiceDefinition service =
        ServerServiceDefinition.builder("tether.testing.Virtual")
            .addMethod(
                WAIT,
                ServerCalls.asyncUnaryCall(
                    (request, out) -> {
                      arrived.countDown();
                      try {
                        if (!arrived.await(20, TimeUnit.SECONDS)) {
                          throw new IllegalStateException("only some calls ran at once");
                        }
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                      }
                      Thread me = Thread.currentThread();
                      out.onNext(
                          (OnVirtualThreads.isVirtual(me) + " " + me.getName()).getBytes(UTF_8));
                      out.onCompleted();
                    }))
            .build();
    try (TetherServer server =
        TetherGrpc.server()
            .service(service)
            .configure(
                TetherServer.builder()
                    .endpoints("tcp -h 127.0.0.1 -p 0")
                    .executionMode(ExecutionMode.VIRTUAL_THREADS))
            .build()
            .start()) {
      ManagedChannel channel =
          ManagedChannelBuilder.forAddress("127.0.0.1", server.endpoints().get(0).port())
              .usePlaintext()
              .build();
      try {
        List<Future<byte[]>> answers = new ArrayList<>();
        for (int i = 0; i < calls; i++) {
          answers.add(
              ClientCalls.futureUnaryCall(
                  channel.newCall(
                      WAIT, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS)),
                  new byte[] {(byte) i}));
        }
        for (Future<byte[]> answer : answers) {
          assertThat(new String(answer.get(30, TimeUnit.SECONDS), UTF_8))
              .startsWith("true tether-service-virtual-");
        }
        assertThat(arrived.getCount()).isZero();
      } finally {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }

  /**
   * The server's bound on calls running at once (its {@code maxConcurrentRequests}) counts gRPC
   * calls holding a thread beside Tether's: with two gRPC calls blocked on a bound of two, a Tether
   * call is refused without running; once they end, it runs.
   */
  @Test
  void grpcCallsHoldPlacesOfTheBoundTetherCallsAreCountedAgainst() throws Exception {
    CountDownLatch arrived = new CountDownLatch(2);
    CountDownLatch release = new CountDownLatch(1);
    ServerServiceDefinition service =
        ServerServiceDefinition.builder("tether.testing.Virtual")
            .addMethod(
                WAIT,
                ServerCalls.asyncUnaryCall(
                    (request, out) -> {
                      arrived.countDown();
                      try {
                        release.await(30, TimeUnit.SECONDS);
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                      }
                      out.onNext(request);
                      out.onCompleted();
                    }))
            .build();
    try (TetherServer server =
            TetherGrpc.server()
                .service(service)
                .configure(
                    TetherServer.builder()
                        .endpoints("tcp -h 127.0.0.1 -p 0")
                        .service("echo", (operation, payload, ctx) -> payload)
                        .maxConcurrentRequests(2)
                        .executionMode(ExecutionMode.VIRTUAL_THREADS))
                .build()
                .start();
        Tether tether = Tether.create()) {
      ManagedChannel channel =
          ManagedChannelBuilder.forAddress("127.0.0.1", server.endpoints().get(0).port())
              .usePlaintext()
              .build();
      try {
        List<Future<byte[]>> blocked = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
          blocked.add(
              ClientCalls.futureUnaryCall(
                  channel.newCall(
                      WAIT, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS)),
                  new byte[] {(byte) i}));
        }
        assertThat(arrived.await(20, TimeUnit.SECONDS)).isTrue();
        Proxy echo =
            tether.proxy(server.proxyString("echo")).withInvocationTimeout(Duration.ofSeconds(1));

        assertThatThrownBy(() -> echo.invoke("echo", new byte[] {7}))
            .isInstanceOfSatisfying(
                TetherException.class,
                e ->
                    assertThat(e.attempts())
                        .extracting(Attempt::outcome)
                        .contains(Attempt.Outcome.REFUSED));

        release.countDown();
        for (Future<byte[]> answer : blocked) {
          answer.get(20, TimeUnit.SECONDS);
        }
        await()
            .atMost(Duration.ofSeconds(10))
            .untilAsserted(
                () -> assertThat(echo.invoke("echo", new byte[] {7})).containsExactly(7));
      } finally {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }
}
