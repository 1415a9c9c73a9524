package dev.tether.transport;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.TlsConfig;
import io.netty.handler.ssl.SslContext;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.CertificateBuilder.KeyUsage;
import io.netty.pkitesting.X509Bundle;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which chains a reload may put in place of the one in use. */
class ChainCompletenessTest {
  @TempDir static Path dir;

  private static X509Bundle root;
  private static X509Bundle intermediate;
  private static X509Bundle leaf;
  private static X509Bundle otherRoot;
  private static X509Bundle otherLeaf;

  @BeforeAll
  static void authorities() throws Exception {
    root = ca("CN=Chain root").buildSelfSigned();
    intermediate = ca("CN=Chain intermediate").buildIssuedBy(root);
    leaf = leaf("CN=chain leaf").buildIssuedBy(intermediate);
    otherRoot = ca("CN=Other root").buildSelfSigned();
    otherLeaf = leaf("CN=other leaf").buildIssuedBy(otherRoot);
  }

  private static CertificateBuilder ca(String subject) {
    return new CertificateBuilder()
        .subject(subject)
        .setIsCertificateAuthority(true)
        .setKeyUsage(true, KeyUsage.keyCertSign, KeyUsage.cRLSign);
  }

  private static CertificateBuilder leaf(String subject) {
    return new CertificateBuilder()
        .subject(subject)
        .setKeyUsage(true, KeyUsage.digitalSignature)
        .addSanIpAddress("127.0.0.1")
        .addExtendedKeyUsageServerAuth();
  }

  private static SslContext server(String name, X509Bundle key, X509Bundle... chain)
      throws Exception {
    StringBuilder pem = new StringBuilder();
    for (X509Bundle certificate : chain) {
      pem.append(certificate.getCertificatePEM());
    }
    Path chainFile = Files.writeString(dir.resolve(name + ".pem"), pem);
    Path keyFile = Files.writeString(dir.resolve(name + ".key"), key.getPrivateKeyPEM());
    return TlsContexts.forServer(TlsConfig.fromPem(chainFile, keyFile, null));
  }

  @Test
  void chainThatStopsBelowAnIntermediateTheOneInUseSentIsRefusedNamingItsFile() throws Exception {
    SslContext installed = server("whole", leaf, leaf, intermediate);
    SslContext next = server("leaf-only", leaf, leaf);

    assertThatThrownBy(() -> ChainCompleteness.requireContinues(installed, next))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(dir.resolve("leaf-only.pem").toString())
        .hasMessageContaining("CN=Chain intermediate");
  }

  @Test
  void chainThatLeavesOutOnlyTheRootTheOneInUseSentIsTaken() throws Exception {
    SslContext installed = server("with-root", leaf, leaf, intermediate, root);
    SslContext next = server("without-root", leaf, leaf, intermediate);

    assertThatCode(() -> ChainCompleteness.requireContinues(installed, next))
        .doesNotThrowAnyException();
  }

  @Test
  void chainFromAnotherAuthorityIsTaken() throws Exception {
    SslContext installed = server("first", leaf, leaf, intermediate);
    SslContext next = server("other", otherLeaf, otherLeaf);

    assertThatCode(() -> ChainCompleteness.requireContinues(installed, next))
        .doesNotThrowAnyException();
  }

  @Test
  void firstContextIsTakenAsGiven() throws Exception {
    SslContext next = server("alone", leaf, leaf);

    assertThatCode(() -> ChainCompleteness.requireContinues(null, next)).doesNotThrowAnyException();
  }
}
