package dev.tether.grpc;

import static dev.tether.grpc.InteropService.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.Tether;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code ClientCall.isReady()} follows the HTTP/2 stream's send window: against grpc-java's server
 * that reads a client stream only when the test says so, a caller that sends only while ready stops
 * after a bounded amount (the server's window and gRPC's on-ready threshold), and hears {@code
 * onReady()} to go on once the server reads.
 */
@Timeout(60)
class TetherChannelSendWindowTest {
  /** The server's stream (and connection) flow-control window. */
  private static final int SERVER_WINDOW = 64 * 1024;

  private static final int MESSAGE = 1024;

  /** Far more than the window and the threshold hold together. */
  private static final int TOTAL = 2000;

  private final Tether tether = Tether.create();
  private final CompletableFuture<ServerCall<byte[], byte[]>> serverCall =
      new CompletableFuture<>();
  private final AtomicInteger received = new AtomicInteger();
  private Server server;
  private ManagedChannel channel;

  @AfterEach
  void stop() throws InterruptedException {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    tether.close();
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }

  /** Reads nothing until the test requests messages on the call; answers the count at the end. */
  private final ServerCallHandler<byte[], byte[]> slowReader =
      (call, headers) -> {
        serverCall.complete(call);
        return new ServerCall.Listener<>() {
          @Override
          public void onMessage(byte[] message) {
            received.incrementAndGet();
          }

          @Override
          public void onHalfClose() {
            call.sendHeaders(new Metadata());
            call.sendMessage(text(String.valueOf(received.get())));
            call.close(Status.OK, new Metadata());
          }
        };
      };

  /** Sends while the call is ready, and again at each onReady; notes that readiness stopped it. */
  private final class Sender extends ClientCall.Listener<byte[]> {
    final CompletableFuture<Integer> firstStall = new CompletableFuture<>();
    final CompletableFuture<String> answer = new CompletableFuture<>();
    final AtomicInteger sent = new AtomicInteger();
    ClientCall<byte[], byte[]> call;

    @Override
    public void onReady() {
      while (call.isReady() && sent.get() < TOTAL) {
        call.sendMessage(new byte[MESSAGE]);
        sent.incrementAndGet();
      }
      if (sent.get() < TOTAL) {
        firstStall.complete(sent.get());
      } else if (!answer.isDone() && call.isReady()) {
        call.halfClose();
      }
    }

    @Override
    public void onMessage(byte[] message) {
      answer.complete(text(message));
    }

    @Override
    public void onClose(Status status, Metadata trailers) {
      if (!status.isOk()) {
        answer.completeExceptionally(status.asRuntimeException());
        firstStall.completeExceptionally(status.asRuntimeException());
      }
    }
  }

  @Test
  void aCallerSendingWhileReadyStopsAtTheServersWindowAndGoesOnWhenTheServerReads()
      throws Exception {
    server =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .flowControlWindow(SERVER_WINDOW)
            .addService(
                ServerServiceDefinition.builder(InteropService.SERVICE)
                    .addMethod(InteropService.STREAMING_INPUT, slowReader)
                    .build())
            .build()
            .start();
    channel = TetherGrpc.channel(tether.proxy("interop:tcp -h 127.0.0.1 -p " + server.getPort()));
    Sender sender = new Sender();
    sender.call =
        channel.newCall(
            InteropService.STREAMING_INPUT,
            CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS));
    sender.call.start(sender, new Metadata());
    sender.call.request(1);

    ServerCall<byte[], byte[]> reader = serverCall.get(20, TimeUnit.SECONDS);
    sender.firstStall.get(20, TimeUnit.SECONDS);

    // The sender fills the server's window (it goes on after each stall as the wire takes what
    // waited), then stops for good within what the window and the on-ready threshold hold.
    int windowFull = SERVER_WINDOW / (MESSAGE + 5);
    int bound = (SERVER_WINDOW + 32 * 1024) / (MESSAGE + 5) + 2;
    await().atMost(Duration.ofSeconds(20)).until(() -> sender.sent.get() >= windowFull);
    await()
        .during(Duration.ofMillis(500))
        .atMost(Duration.ofSeconds(10))
        .until(() -> sender.sent.get() <= bound);
    assertThat(received.get()).isZero();

    reader.request(TOTAL);

    assertThat(sender.answer.get(20, TimeUnit.SECONDS)).isEqualTo(String.valueOf(TOTAL));
    assertThat(sender.sent.get()).isEqualTo(TOTAL);
  }
}
