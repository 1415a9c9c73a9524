package dev.tether.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.TetherServer;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.netty.handler.codec.http2.Http2Error;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * gRPC's keepalive policy (gRFC A8): the server answers PINGs, and a client that pings more often
 * than permitted gets GOAWAY ENHANCE_YOUR_CALM "too_many_pings" after two strikes.
 */
@Timeout(60)
class GrpcKeepAliveTest {
  private TetherServer server;

  private int start(UnaryOperator<GrpcServices> settings) {
    server =
        settings
            .apply(TetherGrpc.server().service(new InteropService().definition()))
            .configure(TetherServer.builder().endpoints("tcp -h 127.0.0.1 -p 0"))
            .build()
            .start();
    return server.endpoints().get(0).port();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  /** The frames the server sends after its SETTINGS for {@code pings} PINGs, up to a GOAWAY. */
  private static List<String> ping(RawHttp2Client client, int pings) throws Exception {
    assertThat(client.next()).isEqualTo("settings");
    List<String> frames = new ArrayList<>();
    for (int i = 1; i <= pings; i++) {
      client.ping(i);
      String frame = client.next();
      // The client's SETTINGS answered: not part of the ping exchange.
      while (frame != null && !frame.startsWith("ping-ack") && !frame.startsWith("goaway")) {
        frame = client.next();
      }
      frames.add(frame);
      if (frame == null || frame.startsWith("goaway")) {
        break;
      }
    }
    return frames;
  }

  @Test
  void aClientThatPingsMoreOftenThanPermittedGetsTooManyPingsOnItsThirdStrike() throws Exception {
    int port = start(UnaryOperator.identity());
    try (RawHttp2Client client = new RawHttp2Client(port)) {
      List<String> frames = ping(client, 10);

      // Each PING is answered; the third too soon is followed by the GOAWAY.
      assertThat(frames)
          .containsExactly(
              "ping-ack 1",
              "ping-ack 2",
              "ping-ack 3",
              "goaway " + Http2Error.ENHANCE_YOUR_CALM.code());
      assertThat(client.goAwayDebugData()).isEqualTo("too_many_pings");
    }
  }

  @Test
  void aClientPermittedToPingOftenIsAnsweredEveryTimeAndServed() throws Exception {
    int port = start(s -> s.permitKeepAliveTime(Duration.ZERO).permitKeepAliveWithoutCalls(true));
    try (RawHttp2Client client = new RawHttp2Client(port)) {
      List<String> frames = ping(client, 10);

      assertThat(frames).hasSize(10).allMatch(f -> f.startsWith("ping-ack"));
    }
    ManagedChannel channel =
        ManagedChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    try {
      byte[] echoed =
          ClientCalls.blockingUnaryCall(
              channel,
              InteropService.UNARY,
              CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
              InteropService.text("still served"));
      assertThat(InteropService.text(echoed)).isEqualTo("still served");
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  @Test
  void aGrpcJavaClientsFlowControlPingsDuringALongStreamAreNoStrikes() throws Exception {
    int port = start(UnaryOperator.identity());
    ManagedChannel channel =
        ManagedChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    try {
      // 12 MiB in messages of 32 KiB and 4 MiB: grpc-java's client pings as data comes, to size
      // its window, also while one large message is on its way.
      String sizes = String.join(",", Collections.nCopies(256, "32768")) + ",4000000,4000000";
      int[] count = {0};
      ClientCalls.blockingServerStreamingCall(
              channel,
              InteropService.STREAMING_OUTPUT,
              CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS),
              InteropService.text(sizes))
          .forEachRemaining(m -> count[0]++);

      assertThat(count[0]).isEqualTo(258);
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
