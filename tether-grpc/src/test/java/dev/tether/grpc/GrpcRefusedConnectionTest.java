package dev.tether.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.TetherServer;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.netty.handler.codec.http2.Http2Error;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A gRPC connection the server turns away ({@code maxConnections}) hears why: a GOAWAY that accepts
 * no stream, before the close, instead of a bare close its client cannot tell from a network
 * failure.
 */
@Timeout(60)
class GrpcRefusedConnectionTest {
  private TetherServer server;
  private ManagedChannel first;

  @BeforeEach
  void start() {
    server =
        TetherGrpc.server()
            .service(new InteropService().definition())
            .configure(TetherServer.builder().endpoints("tcp -h 127.0.0.1 -p 0").maxConnections(1))
            .build()
            .start();
    first =
        ManagedChannelBuilder.forAddress("127.0.0.1", server.endpoints().get(0).port())
            .usePlaintext()
            .build();
  }

  @AfterEach
  void stop() throws InterruptedException {
    first.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    server.close();
  }

  @Test
  void aConnectionAboveMaxConnectionsGetsGoAwayBeforeItIsClosed() throws Exception {
    byte[] echoed =
        ClientCalls.blockingUnaryCall(
            first,
            InteropService.UNARY,
            CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS),
            InteropService.text("counted"));
    assertThat(InteropService.text(echoed)).isEqualTo("counted");

    try (RawHttp2Client second = new RawHttp2Client(server.endpoints().get(0).port())) {
      assertThat(second.next()).isEqualTo("settings");
      String frame = second.next();
      for (int read = 0; frame != null && !frame.startsWith("goaway") && read < 10; read++) {
        frame = second.next();
      }

      assertThat(frame).isEqualTo("goaway " + Http2Error.REFUSED_STREAM.code());
      assertThat(second.goAwayDebugData()).isEqualTo("connection refused by the server");
    }
  }
}
