package dev.tether.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.ConnectFailedException;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.TlsConfig;
import dev.tether.observe.TetherEvent;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.CertificateBuilder.KeyUsage;
import io.netty.pkitesting.X509Bundle;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Hostname verification, on by default, between a real Tether client and server over loopback TLS:
 * each server certificate comes from the one CA the client trusts and differs only in the names it
 * carries, so whatever is refused is refused for the name.
 */
class HostnameVerificationTest {
  private static X509Bundle ca;
  private final List<TetherEvent> clientEvents = new CopyOnWriteArrayList<>();
  private TetherServer server;
  private Tether tether;

  @BeforeAll
  static void authority() throws Exception {
    ca =
        new CertificateBuilder()
            .subject("CN=Hostname test CA")
            .setIsCertificateAuthority(true)
            .setKeyUsage(true, KeyUsage.keyCertSign)
            .buildSelfSigned();
  }

  @AfterEach
  void stop() {
    if (tether != null) {
      tether.close();
    }
    server.close();
  }

  private static InputStream pem(String text) {
    return new ByteArrayInputStream(text.getBytes(StandardCharsets.US_ASCII));
  }

  /** A server whose certificate carries the names {@code names} adds. */
  private void startServer(UnaryOperator<CertificateBuilder> names) throws Exception {
    X509Bundle leaf =
        names
            .apply(
                new CertificateBuilder()
                    .subject("CN=tether-server")
                    .setKeyUsage(true, KeyUsage.digitalSignature)
                    .addExtendedKeyUsageServerAuth())
            .buildIssuedBy(ca);
    server =
        TetherServer.builder()
            .endpoints("ssl -h 127.0.0.1 -p 0")
            .tls(
                TlsConfig.fromPem(
                    pem(leaf.getCertificatePathPEM()), pem(leaf.getPrivateKeyPEM()), null))
            .service("echo", (op, payload, ctx) -> payload)
            .build()
            .start();
  }

  /**
   * Calls echo on the server's port through {@code host}, which the test resolver maps to
   * 127.0.0.1.
   */
  private String call(String host, UnaryOperator<TlsConfig> tls) {
    tether =
        Tether.builder()
            .tls(tls.apply(TlsConfig.fromPem(null, null, pem(ca.getCertificatePEM()))))
            .resolver(name -> List.of(InetAddress.getByAddress(name, new byte[] {127, 0, 0, 1})))
            .property("tether.retry.intervals", "0 0 0")
            .listener(clientEvents::add)
            .build();
    byte[] answer =
        tether
            .proxy("echo:ssl -h " + host + " -p " + server.endpoints().get(0).port())
            .invoke("echo", "hi".getBytes(StandardCharsets.UTF_8));
    return new String(answer, StandardCharsets.UTF_8);
  }

  @Test
  void refusesServerWhoseCertificateNamesAnotherHostAndSaysWhichNames() throws Exception {
    startServer(b -> b.addSanDnsName("evil.example"));

    assertThatThrownBy(() -> call("127.0.0.1", UnaryOperator.identity()))
        .isInstanceOf(ConnectFailedException.class)
        .hasMessageContaining("dialled host 127.0.0.1")
        .hasMessageContaining("DNS:evil.example");
    assertThat(clientEvents)
        .filteredOn(e -> e.kind() == TetherEvent.Kind.CONNECTING)
        .as(
            "three more rounds allowed, yet the endpoint that presented the wrong name is not tried again")
        .hasSize(1);
  }

  @Test
  void acceptsServerWhoseIpAddressNameMatchesTheDialledAddress() throws Exception {
    startServer(b -> b.addSanIpAddress("127.0.0.1"));

    assertThat(call("127.0.0.1", UnaryOperator.identity())).isEqualTo("hi");
  }

  @Test
  void acceptsServerWhoseDnsNameMatchesTheDialledHostName() throws Exception {
    startServer(b -> b.addSanDnsName("db1.tether.test"));

    assertThat(call("db1.tether.test", UnaryOperator.identity())).isEqualTo("hi");
  }

  @Test
  void ipEndpointIsNotMatchedByADnsNameSpellingTheAddress() throws Exception {
    startServer(b -> b.addSanDnsName("127.0.0.1"));

    assertThatThrownBy(() -> call("127.0.0.1", UnaryOperator.identity()))
        .isInstanceOf(ConnectFailedException.class)
        .hasMessageContaining("DNS:127.0.0.1");
  }

  @Test
  void certificateNamingTheHostOnlyInItsCommonNameIsRefused() throws Exception {
    startServer(b -> b.subject("CN=db1.tether.test"));

    assertThatThrownBy(() -> call("db1.tether.test", UnaryOperator.identity()))
        .isInstanceOf(ConnectFailedException.class)
        .hasMessageContaining("dialled host db1.tether.test")
        .hasMessageContaining("no subject alternative names");
  }

  @Test
  void wrongNameIsAcceptedOnlyWithTheExplicitOptOut() throws Exception {
    startServer(b -> b.addSanDnsName("evil.example"));

    assertThat(call("127.0.0.1", tls -> tls.withHostnameVerification(false))).isEqualTo("hi");
  }
}
