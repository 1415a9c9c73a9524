package dev.tether.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.ClientAuth;
import dev.tether.ConnectFailedException;
import dev.tether.NoEndpointException;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.TlsConfig;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The ssl transport end to end: real TLS over loopback between a Tether client and server. */
class SslTransportTest {
  public record Account(String owner, long cents) {}

  public interface Bank {
    Account open(String owner, long cents);
  }

  private static TestCertificates certificates;
  private TetherServer server;
  private Tether tether;

  @BeforeAll
  static void generate() {
    certificates = TestCertificates.create();
  }

  @AfterEach
  void stop() {
    if (tether != null) {
      tether.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private void startServer(ClientAuth auth) {
    server =
        TetherServer.builder()
            .endpoints("ssl -h 127.0.0.1 -p 0")
            .tls(certificates.serverConfig(auth))
            .service("bank", Bank.class, (owner, cents) -> new Account(owner, cents))
            .service("echo", (op, payload, ctx) -> payload)
            .build()
            .start();
  }

  private Proxy proxy(TlsConfig clientTls, String service) {
    tether = Tether.builder().tls(clientTls).build();
    return tether.proxy(server.proxyString(service));
  }

  @Test
  void sslCarriesATypedCall() {
    startServer(ClientAuth.NONE);
    Proxy p = proxy(certificates.trustingClient(), "bank");
    assertThat(p.as(Bank.class).open("ada", 100)).isEqualTo(new Account("ada", 100));
    assertThat(p.connection().isSecure()).isTrue();
    assertThat(p.connection().transport()).isEqualTo("ssl");
  }

  @Test
  void clientCertificateRequiredAndPresentedIsAccepted() {
    startServer(ClientAuth.REQUIRE);
    Proxy p = proxy(certificates.clientWithCertificate(), "echo");
    assertThat(p.invoke("echo", "mutual".getBytes(StandardCharsets.UTF_8)))
        .asString()
        .isEqualTo("mutual");
  }

  @Test
  void clientWithoutCertificateIsRefusedWhenRequired() {
    startServer(ClientAuth.REQUIRE);
    Proxy p = proxy(certificates.trustingClient(), "echo");
    assertThatThrownBy(() -> p.invoke("echo", new byte[0]))
        .isInstanceOf(ConnectFailedException.class);
  }

  @Test
  void clientWithUntrustedCertificateIsRefusedWhenRequired() {
    startServer(ClientAuth.REQUIRE);
    Proxy p = proxy(certificates.clientWithUntrustedCertificate(), "echo");
    assertThatThrownBy(() -> p.invoke("echo", new byte[0]))
        .isInstanceOf(ConnectFailedException.class);
  }

  @Test
  void clientNotTrustingTheServerRefusesIt() {
    startServer(ClientAuth.NONE);
    Proxy p = proxy(certificates.clientTrustingAnotherCa(), "echo");
    assertThatThrownBy(() -> p.invoke("echo", new byte[0]))
        .isInstanceOf(ConnectFailedException.class)
        .hasMessageContaining("ssl -h 127.0.0.1");
  }

  @Test
  void sslEndpointIsDroppedWhenTheClientHasNoTls() {
    startServer(ClientAuth.NONE);
    tether = Tether.create();
    Proxy p = tether.proxy(server.proxyString("echo"));
    assertThatThrownBy(() -> p.invoke("echo", new byte[0]))
        .isInstanceOf(NoEndpointException.class)
        .hasMessageContaining("step 1");
  }
}
