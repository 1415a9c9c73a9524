package dev.tether.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.TetherServer;
import dev.tether.observe.TetherEvent;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code tether.server.readerIdle} on gRPC connections: one that reads nothing and runs no call for
 * that long gets a GOAWAY and closes, and its client's next call goes on a new connection; one with
 * a call in flight stays, however quiet its client.
 */
@Timeout(60)
class GrpcReaderIdleTest {
  private final List<TetherEvent> events = new CopyOnWriteArrayList<>();
  private TetherGrpcServerFixture grpc;
  private TetherServer server;
  private ManagedChannel channel;

  @BeforeEach
  void start() {
    grpc =
        TetherGrpcServerFixture.start(
            TetherGrpc.server().service(new InteropService().definition()),
            TetherServer.builder()
                .property("tether.server.readerIdle", "300ms")
                .listener(events::add));
    server = grpc.server();
    channel = grpc.channel();
  }

  @AfterEach
  void stop() throws InterruptedException {
    grpc.close();
  }

  private static CallOptions options() {
    return CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS);
  }

  private long accepted() {
    return events.stream().filter(e -> e.kind() == TetherEvent.Kind.ACCEPTED).count();
  }

  private long idleGoAways() {
    return events.stream()
        .filter(e -> e.kind() == TetherEvent.Kind.GOAWAY_SENT && e.detail().contains("idle"))
        .count();
  }

  @Test
  void anIdleGrpcConnectionGetsGoAwayAndTheNextCallGoesOnANewOne() {
    ClientCalls.blockingUnaryCall(
        channel, InteropService.UNARY, options(), InteropService.text("first"));

    await().atMost(Duration.ofSeconds(10)).until(() -> idleGoAways() == 1);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> server.status().protocol("grpc").connections() == 0);

    byte[] echoed =
        ClientCalls.blockingUnaryCall(
            channel, InteropService.UNARY, options(), InteropService.text("next"));
    assertThat(InteropService.text(echoed)).isEqualTo("next");
  }

  @Test
  void aConnectionWithACallInFlightStaysHoweverQuietItsClient() throws Exception {
    CompletableFuture<Status> closed = new CompletableFuture<>();
    ClientCall<byte[], byte[]> sleeping = channel.newCall(InteropService.SLEEP, options());
    sleeping.start(
        new ClientCall.Listener<>() {
          @Override
          public void onClose(Status status, Metadata trailers) {
            closed.complete(status);
          }
        },
        new Metadata());
    sleeping.sendMessage(InteropService.text("zzz"));
    sleeping.halfClose();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> server.status().protocol("grpc").inFlight() == 1);

    // Several reader idles pass with the client silent: the call keeps the connection.
    await()
        .during(Duration.ofMillis(1500))
        .atMost(Duration.ofSeconds(5))
        .until(() -> server.status().protocol("grpc").connections() == 1 && !closed.isDone());
    // A connection that went idle before the call reached it (its client slow to send the call's
    // headers on a loaded machine) got its GOAWAY, and the channel sent the call on a new one;
    // the one carrying the call, still open, got none.
    assertThat(idleGoAways()).isEqualTo(accepted() - 1);

    sleeping.cancel("enough", null);
    assertThat(closed.get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.CANCELLED);
  }

  @Test
  void aClientPingingWithinThePolicyKeepsItsConnectionUntilItStops() throws Exception {
    try (TetherServer permissive =
            TetherGrpc.server()
                .service(new InteropService().definition())
                .permitKeepAliveWithoutCalls(true)
                .permitKeepAliveTime(Duration.ofMillis(20))
                .configure(
                    TetherServer.builder()
                        .endpoints("tcp -h 127.0.0.1 -p 0")
                        // Ten pings' room: a poll held up on a loaded machine must not let the
                        // connection go idle (300 ms, three pings, once did).
                        .property("tether.server.readerIdle", "1s"))
                .build()
                .start();
        RawHttp2Client client = new RawHttp2Client(permissive.endpoints().get(0).port())) {
      assertThat(client.next()).isEqualTo("settings");

      // Several reader idles without a call, a PING every 100 ms: the connection stays.
      await()
          .during(Duration.ofSeconds(3))
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(100))
          .until(
              () -> {
                client.ping(7);
                return client.goAwayDebugData() == null
                    && permissive.status().protocol("grpc").connections() == 1;
              });

      await().atMost(Duration.ofSeconds(10)).until(() -> "idle".equals(client.goAwayDebugData()));
    }
  }
}
