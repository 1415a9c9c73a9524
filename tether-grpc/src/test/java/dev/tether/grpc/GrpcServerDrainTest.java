package dev.tether.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.TetherServer;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
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
  private TetherGrpcServerFixture grpc;
  private TetherServer server;
  private ManagedChannel channel;

  @BeforeEach
  void start() {
    grpc =
        TetherGrpcServerFixture.start(
            TetherGrpc.server().service(new InteropService().definition()));
    server = grpc.server();
    channel = grpc.channel();
  }

  @AfterEach
  void stop() throws InterruptedException {
    grpc.close();
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
