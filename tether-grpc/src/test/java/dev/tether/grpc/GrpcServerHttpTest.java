package dev.tether.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.TetherServer;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import java.time.Duration;
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
