package dev.tether.grpc;

import static dev.tether.grpc.InteropService.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.CallContext;
import dev.tether.ClientAuth;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.testkit.TestCertificates;
import io.grpc.CallOptions;
import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.TlsChannelCredentials;
import io.grpc.stub.ClientCalls;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Under TLS a gRPC client asks ALPN for "h2" (grpc-java refuses a server that does not agree) and
 * is served on the same ssl port as Tether's own clients, which name no ALPN protocol.
 */
@Timeout(60)
class GrpcTlsTest {
  private final TestCertificates certificates = TestCertificates.create();
  private final List<CallContext> intercepted = new CopyOnWriteArrayList<>();
  private TetherServer server;
  private ManagedChannel channel;

  @BeforeEach
  void start() {
    server =
        TetherGrpc.server()
            .service(new InteropService().definition())
            .configure(
                TetherServer.builder()
                    .endpoints("ssl -h 127.0.0.1 -p 0")
                    .tls(certificates.serverConfig(ClientAuth.OPTIONAL))
                    .interceptor(intercepted::add)
                    .service("echo", (operation, payload, ctx) -> payload))
            .build()
            .start();
  }

  @AfterEach
  void stop() throws InterruptedException {
    if (channel != null) {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    server.close();
  }

  private ManagedChannel connect(ChannelCredentials credentials) {
    channel =
        Grpc.newChannelBuilderForAddress("127.0.0.1", server.endpoints().get(0).port(), credentials)
            .build();
    return channel;
  }

  @Test
  void aGrpcClientOverTlsGetsH2ByAlpnAndIsServedBesideATetherClient() throws IOException {
    ManagedChannel grpc =
        connect(
            TlsChannelCredentials.newBuilder()
                .trustManager(certificates.caCertificate().toFile())
                .build());

    assertThat(
            ClientCalls.blockingUnaryCall(
                grpc, InteropService.UNARY, CallOptions.DEFAULT, text("tls")))
        .isEqualTo(text("tls"));
    try (Tether tether = Tether.builder().tls(certificates.trustingClient()).build()) {
      assertThat(tether.proxy(server.proxyString("echo")).invoke("op", text("tether")))
          .isEqualTo(text("tether"));
    }
    assertThat(
            ClientCalls.blockingUnaryCall(
                grpc, InteropService.UNARY, CallOptions.DEFAULT, text("again")))
        .isEqualTo(text("again"));
    assertThat(server.status().protocol("grpc").served()).isEqualTo(2);
  }

  @Test
  void aGrpcClientsVerifiedCertificateIsTheCallsPeer() throws IOException {
    ManagedChannel grpc =
        connect(
            TlsChannelCredentials.newBuilder()
                .trustManager(certificates.caCertificate().toFile())
                .keyManager(
                    certificates.client().certificateChain().toFile(),
                    certificates.client().privateKey().toFile())
                .build());

    ClientCalls.blockingUnaryCall(grpc, InteropService.EMPTY, CallOptions.DEFAULT, new byte[0]);

    CallContext call = intercepted.get(0);
    assertThat(call.protocol()).isEqualTo("grpc");
    assertThat(call.peerPrincipal().getName())
        .isEqualTo(TestCertificates.CLIENT_SUBJECT.replace(", ", ","));
  }
}
