package dev.tether.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.TetherServer;
import io.grpc.Status;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A gRPC client that is not Java, {@code @grpc/grpc-js} under Node with {@code
 * @grpc/proto-loader} reading {@code src/test/node/interop.proto}, against a Tether server on a
 * loopback port that also speaks Tether's own protocol.
 */
@Timeout(120)
class GrpcNodeClientTest {
  private static TetherServer server;

  @BeforeAll
  static void start() {
    server =
        TetherGrpc.server()
            .service(NodeInteropService.definition())
            .configure(
                TetherServer.builder()
                    .endpoints("tcp -h 127.0.0.1 -p 0")
                    .service("echo", (operation, payload, ctx) -> payload))
            .build()
            .start();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static Map<String, String> node(String caseName) throws Exception {
    return NodeClient.run(server.endpoints().get(0).port(), caseName);
  }

  @Test
  void nodeClientGetsItsUnaryRequestEchoedWithItsInitialAndBinaryTrailingMetadata()
      throws Exception {
    Map<String, String> seen = node("unary");

    assertThat(seen)
        .containsEntry("equal", "true")
        .containsEntry("size", "4096")
        .containsEntry("initial", "from node")
        .containsEntry(
            "trailing", Base64.getEncoder().encodeToString(new byte[] {(byte) 0xab, -85, -85}));
  }

  @Test
  void nodeClientReceivesAServerStreamOfTheRequestedSizesInOrder() throws Exception {
    assertThat(node("serverStream")).containsEntry("sizes", "31415,9,2653,58979");
  }

  @Test
  void nodeClientStreamsMessagesAndGetsTheirTotalSize() throws Exception {
    assertThat(node("clientStream")).containsEntry("total", "74922");
  }

  @Test
  void nodeClientReadsAStatusCodeAndAMessageWithWhitespaceAndNonBmpCharacters() throws Exception {
    Map<String, String> seen = node("status");

    assertThat(seen).containsEntry("code", Integer.toString(Status.Code.UNKNOWN.value()));
    assertThat(NodeClient.text(seen.get("details")))
        .isEqualTo(NodeClient.text(seen.get("expected")));
    assertThat(NodeClient.text(seen.get("details"))).contains("😈").contains("\r\n");
  }

  @Test
  void nodeClientGetsUnimplementedForAMethodTheServerDoesNotHost() throws Exception {
    assertThat(node("unimplemented"))
        .containsEntry("code", Integer.toString(Status.Code.UNIMPLEMENTED.value()));
  }
}
