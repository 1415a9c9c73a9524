package dev.tether.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.CallContext;
import dev.tether.ClientAuth;
import dev.tether.PermissionDeniedException;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.TlsConfig;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.security.auth.x500.X500Principal;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Who is calling, over real TLS with client certificates: the service and the interceptor see the
 * verified chain, principal and address, and an interceptor refusing by principal keeps the service
 * from running.
 */
class CallerIdentityTest {
  private static final Principal TRUSTED_CLIENT =
      new X500Principal(TestCertificates.CLIENT_SUBJECT);
  private static TestCertificates certificates;
  private final AtomicInteger serviceRuns = new AtomicInteger();
  private final AtomicReference<CallContext> seenByService = new AtomicReference<>();
  private TetherServer server;
  private Tether tether;

  @BeforeAll
  static void generate() {
    certificates = TestCertificates.create();
  }

  @BeforeEach
  void start() {
    server =
        TetherServer.builder()
            .endpoints("ssl -h 127.0.0.1 -p 0")
            // OPTIONAL: a client without a certificate gets through TLS, so the interceptor
            // decides.
            .tls(certificates.serverConfig(ClientAuth.OPTIONAL))
            .interceptor(
                call -> {
                  if (!TRUSTED_CLIENT.equals(call.peerPrincipal())) {
                    throw new PermissionDeniedException(
                        "only " + TRUSTED_CLIENT + " may call; this is " + call.peerPrincipal());
                  }
                })
            .service(
                "ledger",
                (op, payload, ctx) -> {
                  serviceRuns.incrementAndGet();
                  seenByService.set(ctx);
                  return payload;
                })
            .build()
            .start();
  }

  @AfterEach
  void stop() {
    tether.close();
    server.close();
  }

  private byte[] call(TlsConfig clientTls) {
    tether = Tether.builder().tls(clientTls).build();
    return tether
        .proxy(server.proxyString("ledger"))
        .invoke("post", "entry".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void serviceSeesTheVerifiedChainPrincipalAndAddressOfTheCaller() {
    assertThat(call(certificates.clientWithCertificate()))
        .asString(StandardCharsets.UTF_8)
        .isEqualTo("entry");

    CallContext ctx = seenByService.get();
    assertThat(ctx.peerPrincipal()).isEqualTo(TRUSTED_CLIENT);
    assertThat(ctx.peerCertificates())
        .first()
        .satisfies(
            c -> assertThat(c.getIssuerX500Principal().getName()).contains("Tether test CA"));
    assertThat(((InetSocketAddress) ctx.remoteAddress()).getAddress().getHostAddress())
        .isEqualTo("127.0.0.1");
  }

  @Test
  void interceptorRefusingByPrincipalFailsTheCallAndTheServiceNeverRuns() {
    assertThatThrownBy(() -> call(certificates.trustingClient()))
        .isInstanceOf(PermissionDeniedException.class)
        .hasMessageContaining("this is null");
    assertThat(serviceRuns).hasValue(0);
  }
}
