package dev.tether.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.TetherServer;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What the server answers HTTP/2 requests that grpc-java's client would never send. */
@Timeout(60)
class GrpcServerHttpTest {
  private final InteropService service = new InteropService();
  private TetherServer server;

  @BeforeEach
  void start() {
    server =
        TetherGrpc.server()
            .service(service.definition())
            .configure(
                TetherServer.builder().endpoints("tcp -h 127.0.0.1 -p 0").maxConcurrentRequests(2))
            .build()
            .start();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private static Http2Headers request(String method, String contentType) {
    return new DefaultHttp2Headers()
        .method("POST")
        .scheme("http")
        .authority("127.0.0.1")
        .path("/" + InteropService.SERVICE + "/" + method)
        .set("content-type", contentType)
        .set("te", "trailers");
  }

  @Test
  void answersHttp415ToARequestWhoseContentTypeIsNotGrpc() throws Exception {
    try (RawHttp2Client client = new RawHttp2Client(server.endpoints().get(0).port())) {
      assertThat(client.next()).isEqualTo("settings");

      client.open(3, request("UnaryCall", "application/json"), false);

      assertThat(client.next()).isEqualTo("headers 3 415 13");
      assertThat(client.next()).isEqualTo("reset 3 " + Http2Error.NO_ERROR.code());
    }
    assertThat(service.contexts).isEmpty();
  }

  @Test
  void answersRapidResetWithGoAwayEnhanceYourCalmWhileServingOtherClients() throws Exception {
    int port = server.endpoints().get(0).port();
    try (RawHttp2Client attacker = new RawHttp2Client(port)) {
      assertThat(attacker.next()).isEqualTo("settings");

      // Netty's codec allows 200 resets in 30 s: the 201st is answered. Not one byte more, so the
      // server has read all the client sent when it closes; with bytes unread, its kernel would
      // reset the connection and could take the GOAWAY with it.
      attacker.rapidReset(201, request("SleepCall", "application/grpc"));

      String frame = attacker.next();
      for (int read = 0; frame != null && !frame.startsWith("goaway") && read < 500; read++) {
        frame = attacker.next();
      }
      assertThat(frame).isEqualTo("goaway " + Http2Error.ENHANCE_YOUR_CALM.code());
    }
    ManagedChannel other =
        ManagedChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    try {
      byte[] answer =
          ClientCalls.blockingUnaryCall(
              other,
              InteropService.UNARY,
              CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS),
              InteropService.text("served"));

      assertThat(InteropService.text(answer)).isEqualTo("served");
    } finally {
      other.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  @Test
  void refusesAStreamAboveMaxConcurrentRequestsWithRefusedStreamAndNeverRunsIt() throws Exception {
    try (RawHttp2Client client = new RawHttp2Client(server.endpoints().get(0).port())) {
      assertThat(client.next()).isEqualTo("settings");
      // Two calls that wait for a request message that never comes: both streams stay open.
      client.open(3, request("SleepCall", "application/grpc"), false);
      client.open(5, request("SleepCall", "application/grpc"), false);
      await().atMost(Duration.ofSeconds(10)).until(() -> service.contexts.size() == 2);

      client.open(7, request("SleepCall", "application/grpc"), true);

      assertThat(client.next()).isEqualTo("reset 7 " + Http2Error.REFUSED_STREAM.code());
      assertThat(service.contexts).hasSize(2);
    }
  }
}
