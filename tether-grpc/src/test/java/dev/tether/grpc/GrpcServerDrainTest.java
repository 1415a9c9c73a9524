package dev.tether.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.TetherServer;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A graceful shutdown lets the gRPC calls in flight finish, as it does Tether's. */
@Timeout(60)
class GrpcServerDrainTest {
  private TetherServer server;
  private ManagedChannel channel;

  @BeforeEach
  void start() {
    server =
        TetherGrpc.server()
            .service(new InteropService().definition())
            .configure(TetherServer.builder().endpoints("tcp -h 127.0.0.1 -p 0"))
            .build()
            .start();
    channel =
        ManagedChannelBuilder.forAddress("127.0.0.1", server.endpoints().get(0).port())
            .usePlaintext()
            .build();
  }

  @AfterEach
  void stop() throws InterruptedException {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    server.close();
  }

  @Test
  void aGracefulShutdownLetsAStreamInFlightFinishThenCloses() throws Exception {
    BlockingQueue<byte[]> responses = new LinkedBlockingQueue<>();
    CompletableFuture<Void> done = new CompletableFuture<>();
    StreamObserver<byte[]> requests =
        ClientCalls.asyncBidiStreamingCall(
            channel.newCall(
                InteropService.FULL_DUPLEX,
                CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS)),
            new RecordingObserver<>(responses, done));
    requests.onNext(new byte[10]);
    assertThat(responses.poll(10, TimeUnit.SECONDS)).hasSize(10);

    CompletableFuture<Void> shutdown =
        CompletableFuture.runAsync(() -> server.shutdownGracefully(Duration.ofSeconds(30)));

    // The drain waits for the stream: it goes on answering, and ends as it would have.
    requests.onNext(new byte[20]);
    assertThat(responses.poll(10, TimeUnit.SECONDS)).hasSize(20);
    assertThat(shutdown).isNotDone();
    requests.onCompleted();
    done.get(10, TimeUnit.SECONDS);
    shutdown.get(20, TimeUnit.SECONDS);
  }
}
