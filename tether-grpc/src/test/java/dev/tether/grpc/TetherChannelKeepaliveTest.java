package dev.tether.grpc;

import static dev.tether.grpc.InteropService.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.EndpointSelection;
import dev.tether.Tether;
import dev.tether.observe.ConnectionStatus;
import dev.tether.testkit.FaultProxy;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Liveness by HTTP/2 PING within gRPC's keepalive rules, against grpc-java's own servers: a frozen
 * server is found and its idempotent calls move on; a server that finds the pings too frequent gets
 * them half as often, until it keeps the connection.
 */
@Timeout(60)
class TetherChannelKeepaliveTest {
  private final Tether tether = Tether.create();
  private final List<Server> servers = new ArrayList<>();
  private FaultProxy fault;
  private ManagedChannel channel;

  @AfterEach
  void stop() throws InterruptedException {
    if (channel != null) {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    tether.close();
    if (fault != null) {
      fault.close();
    }
    for (Server s : servers) {
      s.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  private Server serve(CountingService service, Duration permitKeepAlive) throws IOException {
    Server s =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(service.definition())
            .permitKeepAliveTime(permitKeepAlive.toMillis(), TimeUnit.MILLISECONDS)
            .build()
            .start();
    servers.add(s);
    return s;
  }

  @Test
  void aFrozenServerIsFoundByPingAndItsIdempotentCallMovesOn() throws Exception {
    CountingService a = new CountingService("a");
    CountingService b = new CountingService("b");
    Server serverA = serve(a, Duration.ofMillis(10));
    fault = FaultProxy.start("127.0.0.1", serverA.getPort());
    channel =
        TetherGrpc.channel(
            tether
                .proxy(
                    "counting:"
                        + fault.endpoint()
                        + ":tcp -h 127.0.0.1 -p "
                        + serve(b, Duration.ofMillis(10)).getPort())
                .withEndpointSelection(EndpointSelection.ORDERED),
            Duration.ofMillis(200),
            Duration.ofMillis(500));
    CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS);
    assertThat(
            text(
                ClientCalls.blockingUnaryCall(
                    channel, CountingService.IDEMPOTENT_CALL, options, text("x"))))
        .isEqualTo("a");

    fault.freeze();
    String answer =
        text(
            ClientCalls.blockingUnaryCall(
                channel, CountingService.IDEMPOTENT_CALL, options, text("x")));

    assertThat(answer).isEqualTo("b");
  }

  @Test
  void aKeepaliveChannelsConnectionsSayGrpcToTheirObservers() throws Exception {
    Server server = serve(new CountingService("a"), Duration.ofMillis(10));
    channel =
        TetherGrpc.channel(
            tether.proxy("counting:tcp -h 127.0.0.1 -p " + server.getPort()),
            Duration.ofMillis(200),
            Duration.ofMillis(500));
    CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS);
    ClientCalls.blockingUnaryCall(channel, CountingService.IDEMPOTENT_CALL, options, text("x"));

    // Its keepalive makes the connection key "grpc+keepalive ...", which is not a protocol.
    assertThat(tether.status().connections())
        .extracting(ConnectionStatus::protocol)
        .containsOnly("grpc");
  }

  @Test
  void aServerThatAnswersTooManyPingsIsPingedHalfAsOftenUntilItKeepsTheConnection()
      throws Exception {
    CountingService a = new CountingService("a");
    Server server = serve(a, Duration.ofMillis(250));
    channel =
        TetherGrpc.channel(
            tether.proxy("counting:tcp -h 127.0.0.1 -p " + server.getPort()),
            Duration.ofMillis(100),
            Duration.ofSeconds(5));

    // Each call waits 1.2 s on a server that permits a PING every 250 ms and closes the
    // connection at the third one too early: pings every 100 ms (closed at about 400 ms), then
    // 200 ms (about 1 s), are too many (the server says so, closes, and the time doubles); from
    // 400 ms on they are welcome. So at most two connections are lost, then the calls keep theirs.
    List<Status.Code> ends = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      CallOptions aWhile = CallOptions.DEFAULT.withDeadlineAfter(1200, TimeUnit.MILLISECONDS);
      Throwable t =
          org.assertj.core.api.Assertions.catchThrowable(
              () ->
                  ClientCalls.blockingUnaryCall(channel, CountingService.HANG, aWhile, text("x")));
      ends.add(((StatusRuntimeException) t).getStatus().getCode());
    }

    assertThat(ends.get(0)).as(ends.toString()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(ends.stream().filter(c -> c == Status.Code.UNAVAILABLE))
        .as(ends.toString())
        .hasSizeLessThanOrEqualTo(2);
    assertThat(ends.subList(3, 5)).as(ends.toString()).containsOnly(Status.Code.DEADLINE_EXCEEDED);
  }
}
