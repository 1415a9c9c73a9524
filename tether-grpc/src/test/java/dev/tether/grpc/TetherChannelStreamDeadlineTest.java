package dev.tether.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.Tether;
import dev.tether.testing.ManualClock;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Deadline;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.Status;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An accepted stream's deadline is kept on the runtime's injected scheduler, as the runtime keeps
 * its own calls' deadlines: a fake clock decides when it passes, against a grpc-java server whose
 * own copy of the deadline (its {@code grpc-timeout}) is far off in real time.
 */
@Timeout(60)
class TetherChannelStreamDeadlineTest {
  private final ManualClock clock = new ManualClock(0);
  private final GrpcJavaPeers peers = new GrpcJavaPeers();

  @AfterEach
  void stop() throws Exception {
    peers.close();
  }

  @Test
  void aServerStreamEndsDeadlineExceededWhenTheRuntimeClockPassesItsDeadlineAndNotBefore()
      throws Exception {
    CountingService counting = new CountingService("s");
    Server server = peers.serve(counting.definition());
    Tether tether = peers.runtime(Tether.builder().ticker(clock).scheduler(clock).build());
    ManagedChannel channel =
        peers.channel(
            TetherGrpc.channel(tether.proxy("streams:tcp -h 127.0.0.1 -p " + server.getPort())));
    Deadline.Ticker fakeTicker =
        new Deadline.Ticker() {
          @Override
          public long nanoTime() {
            return clock.nanoTime();
          }
        };
    CallOptions options =
        CallOptions.DEFAULT.withDeadline(Deadline.after(60, TimeUnit.SECONDS, fakeTicker));

    List<String> messages = new CopyOnWriteArrayList<>();
    CompletableFuture<Status> closed = new CompletableFuture<>();
    ClientCall<byte[], byte[]> call = channel.newCall(CountingService.TRICKLE, options);
    call.start(
        new ClientCall.Listener<>() {
          @Override
          public void onMessage(byte[] message) {
            messages.add(InteropService.text(message));
          }

          @Override
          public void onClose(Status status, Metadata trailers) {
            closed.complete(status);
          }
        },
        new Metadata());
    call.request(3);
    call.sendMessage(new byte[0]);
    call.halfClose();
    await().atMost(Duration.ofSeconds(20)).until(() -> messages.size() == 3);

    clock.forward(Duration.ofSeconds(59));
    // The stream's timer still waits, 1 s from its end: nothing ended it early.
    assertThat(clock.pendingDelays()).contains(Duration.ofSeconds(1));
    assertThat(closed).isNotDone();

    clock.forward(Duration.ofSeconds(2));
    Status status = closed.get(20, TimeUnit.SECONDS);
    assertThat(status.getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    assertThat(messages).containsExactly("s0", "s1", "s2");
  }
}
