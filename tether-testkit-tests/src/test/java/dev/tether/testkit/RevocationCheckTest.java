package dev.tether.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.ClientAuth;
import dev.tether.ConnectFailedException;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.TlsConfig;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.CertificateBuilder.KeyUsage;
import io.netty.pkitesting.X509Bundle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import org.bouncycastle.asn1.x509.CRLReason;
import org.bouncycastle.cert.X509v2CRLBuilder;
import org.bouncycastle.cert.jcajce.JcaX509v2CRLBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The opt-in revocation check over real loopback TLS: a server requiring client certificates, given
 * a certificate revocation list its CA signed (generated here, revoking one client), refuses that
 * client and serves the others; without the check the revoked client is served.
 */
class RevocationCheckTest {
  @TempDir static Path dir;
  private static Path caFile;
  private static Path crlFile;
  private static Path serverChain;
  private static Path serverKey;
  private static Path[] revoked;
  private static Path[] valid;
  private TetherServer server;
  private Tether tether;

  @BeforeAll
  static void authorityWithARevokedClient() throws Exception {
    X509Bundle ca =
        new CertificateBuilder()
            .subject("CN=Revocation test CA")
            .setIsCertificateAuthority(true)
            .setKeyUsage(true, KeyUsage.keyCertSign, KeyUsage.cRLSign)
            .buildSelfSigned();
    X509Bundle server =
        leaf("CN=localhost")
            .addSanIpAddress("127.0.0.1")
            .addExtendedKeyUsageServerAuth()
            .buildIssuedBy(ca);
    X509Bundle revokedClient =
        leaf("CN=revoked-client").addExtendedKeyUsageClientAuth().buildIssuedBy(ca);
    X509Bundle validClient =
        leaf("CN=valid-client").addExtendedKeyUsageClientAuth().buildIssuedBy(ca);
    // A list current for an hour: one served by netty's RevocationServer is due for its next
    // update the moment it is made, and a list past its next update is refused at build.
    Instant now = Instant.now();
    X509v2CRLBuilder list =
        new JcaX509v2CRLBuilder(ca.getCertificate(), Date.from(now.minusSeconds(60)));
    list.setNextUpdate(Date.from(now.plusSeconds(3600)));
    list.addCRLEntry(
        revokedClient.getCertificate().getSerialNumber(),
        Date.from(now.minusSeconds(60)),
        CRLReason.keyCompromise);
    byte[] der =
        list.build(
                new JcaContentSignerBuilder("SHA256withECDSA").build(ca.getKeyPair().getPrivate()))
            .getEncoded();
    caFile = write("ca.pem", ca.getCertificatePEM());
    crlFile =
        write(
            "ca.crl",
            "-----BEGIN X509 CRL-----\n"
                + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
                + "\n-----END X509 CRL-----\n");
    serverChain = write("server.pem", server.getCertificatePathPEM());
    serverKey = write("server.key", server.getPrivateKeyPEM());
    revoked =
        new Path[] {
          write("revoked.pem", revokedClient.getCertificatePathPEM()),
          write("revoked.key", revokedClient.getPrivateKeyPEM())
        };
    valid =
        new Path[] {
          write("valid.pem", validClient.getCertificatePathPEM()),
          write("valid.key", validClient.getPrivateKeyPEM())
        };
  }

  private static CertificateBuilder leaf(String subject) {
    return new CertificateBuilder().subject(subject).setKeyUsage(true, KeyUsage.digitalSignature);
  }

  private static Path write(String name, String pem) throws Exception {
    return Files.writeString(dir.resolve(name), pem, StandardCharsets.US_ASCII);
  }

  @AfterEach
  void stop() {
    if (tether != null) {
      tether.close();
    }
    server.close();
  }

  private void startServer(boolean revocationCheck) {
    TlsConfig tls =
        TlsConfig.fromPem(serverChain, serverKey, caFile).withClientAuth(ClientAuth.REQUIRE);
    server =
        TetherServer.builder()
            .endpoints("ssl -h 127.0.0.1 -p 0")
            .tls(revocationCheck ? tls.withRevocationCheck(crlFile) : tls)
            .service("echo", (op, payload, ctx) -> payload)
            .build()
            .start();
  }

  private String callAs(Path[] identity) {
    tether =
        Tether.builder()
            .tls(TlsConfig.fromPem(identity[0], identity[1], caFile))
            .property("tether.retry.intervals", "0")
            .build();
    byte[] answer =
        tether
            .proxy(server.proxyString("echo"))
            .invoke("echo", "hi".getBytes(StandardCharsets.UTF_8));
    return new String(answer, StandardCharsets.UTF_8);
  }

  @Test
  void revokedClientCertificateIsRefusedWithTheCheckOn() {
    startServer(true);

    assertThatThrownBy(() -> callAs(revoked)).isInstanceOf(ConnectFailedException.class);
  }

  @Test
  void clientCertificateTheListDoesNotRevokeIsServedWithTheCheckOn() {
    startServer(true);

    assertThat(callAs(valid)).isEqualTo("hi");
  }

  @Test
  void revokedClientCertificateIsServedWithoutTheCheck() {
    startServer(false);

    assertThat(callAs(revoked)).isEqualTo("hi");
  }

  @Test
  void revocationCheckWithoutTrustedCertificatesFromPemIsRefusedAtBuild() {
    server =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service("echo", (op, payload, ctx) -> payload)
            .build();
    TlsConfig noPemTrust = TlsConfig.defaultClient().withRevocationCheck(crlFile);

    assertThatThrownBy(() -> Tether.builder().tls(noPemTrust).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("needs trusted certificates from PEM");
  }
}
