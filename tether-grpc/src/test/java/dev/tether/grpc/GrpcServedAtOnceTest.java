package dev.tether.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tether.TetherServer;
import dev.tether.micrometer.TetherMetrics;
import dev.tether.observe.ServerStatus;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Requests the server answers before any method runs (UNIMPLEMENTED, HTTP 415) count as calls it
 * served under protocol "grpc", in its status and its meters: a client calling what is not there is
 * visible, not silent.
 */
@Timeout(60)
class GrpcServedAtOnceTest {
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
  void callsAnsweredUnimplementedCountAsServedUnderGrpcInStatusAndMeters() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    TetherMetrics.bind(server, registry);
    for (String name : new String[] {InteropService.SERVICE + "/Missing", "no.Such/Service"}) {
      MethodDescriptor<byte[], byte[]> unknown =
          InteropService.EMPTY.toBuilder().setFullMethodName(name).build();
      assertThatThrownBy(
              () ->
                  ClientCalls.blockingUnaryCall(channel, unknown, CallOptions.DEFAULT, new byte[0]))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNIMPLEMENTED));
    }

    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () -> {
              assertThat(server.status().protocol("grpc"))
                  .isEqualTo(new ServerStatus.ProtocolShare("grpc", 1, 0, 2));
              assertThat(server.status().served()).isEqualTo(2);
              assertThat(
                      registry
                          .get("tether.server.calls")
                          .tag("protocol", "grpc")
                          .functionCounter()
                          .count())
                  .isEqualTo(2.0);
            });
  }

  @Test
  void aRequestAnsweredHttp415CountsAsServedUnderGrpc() throws Exception {
    try (RawHttp2Client client = new RawHttp2Client(server.endpoints().get(0).port())) {
      assertThat(client.next()).isEqualTo("settings");

      client.open(
          3,
          new DefaultHttp2Headers()
              .method("POST")
              .scheme("http")
              .authority("127.0.0.1")
              .path("/" + InteropService.SERVICE + "/UnaryCall")
              .set("content-type", "application/json"),
          false);

      assertThat(client.next()).startsWith("headers 3 415");
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> server.status().protocol("grpc").served() == 1);
      assertThat(server.status().protocol("grpc").inFlight()).isZero();
    }
  }
}
