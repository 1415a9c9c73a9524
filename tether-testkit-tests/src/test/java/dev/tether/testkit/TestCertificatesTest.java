package dev.tether.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.ClientAuth;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SignatureException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestCertificatesTest {
  @TempDir static Path directory;
  private static TestCertificates certificates;

  @BeforeAll
  static void generateCertificates() {
    certificates = TestCertificates.createIn(directory);
  }

  @Test
  void writesEveryFileAsPemIntoTheGivenDirectory() throws Exception {
    assertThat(certificates.directory()).isEqualTo(directory);
    assertThat(directory)
        .isDirectoryContaining("glob:**/ca.pem")
        .isDirectoryContaining("glob:**/untrusted-ca.pem");
    for (TestCertificates.Identity identity :
        List.of(certificates.server(), certificates.client(), certificates.untrustedClient())) {
      assertThat(Files.readString(identity.certificateChain()))
          .startsWith("-----BEGIN CERTIFICATE-----");
      assertThat(Files.readString(identity.privateKey())).startsWith("-----BEGIN PRIVATE KEY-----");
    }
  }

  @Test
  void serverCertificateNamesLocalhostAndTheLoopbackAddress() throws Exception {
    X509Certificate server = read(certificates.server().certificateChain());

    assertThat(server.getSubjectAlternativeNames())
        .contains(List.of(2, "localhost"), List.of(7, "127.0.0.1"));
  }

  @Test
  void serverAndClientCertificatesAreSignedByTheCa() throws Exception {
    X509Certificate ca = read(certificates.caCertificate());

    read(certificates.server().certificateChain()).verify(ca.getPublicKey());
    read(certificates.client().certificateChain()).verify(ca.getPublicKey());
    assertThat(ca.getBasicConstraints()).isNotNegative();
  }

  @Test
  void untrustedClientCertificateIsSignedByAnotherCa() throws Exception {
    X509Certificate ca = read(certificates.caCertificate());
    X509Certificate untrusted = read(certificates.untrustedClient().certificateChain());

    untrusted.verify(read(certificates.untrustedCaCertificate()).getPublicKey());
    assertThatThrownBy(() -> untrusted.verify(ca.getPublicKey()))
        .isInstanceOf(SignatureException.class);
  }

  @Test
  void readyConfigsPointAtTheGeneratedFiles() {
    assertThat(certificates.serverConfig(ClientAuth.REQUIRE).clientAuth())
        .isEqualTo(ClientAuth.REQUIRE);
    assertThat(certificates.serverConfig(ClientAuth.NONE).certificateChain().orElseThrow().file())
        .contains(certificates.server().certificateChain());
    assertThat(certificates.trustingClient().hasOwnCertificate()).isFalse();
    assertThat(certificates.clientWithCertificate().privateKey().orElseThrow().file())
        .contains(certificates.client().privateKey());
    assertThat(certificates.clientTrustingAnotherCa().trustedCertificates().orElseThrow().file())
        .contains(certificates.untrustedCaCertificate());
  }

  @Test
  void temporaryDirectoryIsCreatedWhenNoneIsGiven() {
    TestCertificates inTemp = TestCertificates.create();

    assertThat(inTemp.caCertificate()).exists().hasParent(inTemp.directory());
  }

  private static X509Certificate read(Path pem) throws Exception {
    try (InputStream in = Files.newInputStream(pem)) {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
  }
}
