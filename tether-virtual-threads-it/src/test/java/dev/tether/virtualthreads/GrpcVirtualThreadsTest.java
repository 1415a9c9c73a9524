package dev.tether.virtualthreads;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.ExecutionMode;
import dev.tether.TetherServer;
import dev.tether.grpc.TetherGrpc;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** gRPC calls on a VIRTUAL_THREADS server: each runs on a virtual thread of its own, at once. */
class GrpcVirtualThreadsTest {
  private static final MethodDescriptor.Marshaller<byte[]> BYTES =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
          return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
          try {
            return stream.readAllBytes();
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      };

  private static final MethodDescriptor<byte[], byte[]> WAIT =
      MethodDescriptor.<byte[], byte[]>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName("tether.testing.Virtual/Wait")
          .setRequestMarshaller(BYTES)
          .setResponseMarshaller(BYTES)
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
}
