package dev.tether;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;

class TlsConfigTest {
  private static final Path CHAIN = Path.of("/etc/tether/server.pem");
  private static final Path KEY = Path.of("/etc/tether/server.key");
  private static final Path CA = Path.of("/etc/tether/ca.pem");

  @Test
  void defaultsAskNoClientCertificateOfferTls13And12AndVerifyHostnames() {
    TlsConfig config = TlsConfig.fromPem(CHAIN, KEY, CA);

    assertThat(config.clientAuth()).isEqualTo(ClientAuth.NONE);
    assertThat(config.protocols()).containsExactly("TLSv1.3", "TLSv1.2");
    assertThat(config.hostnameVerification()).isTrue();
    assertThat(TlsConfig.defaultClient().hostnameVerification()).isTrue();
    assertThat(TlsConfig.fromFactories(null, null).hostnameVerification()).isTrue();
  }

  @Test
  void withMethodsReturnNewConfigsAndLeaveTheOriginalAlone() {
    TlsConfig original = TlsConfig.fromPem(CHAIN, KEY, CA);

    TlsConfig changed =
        original
            .withClientAuth(ClientAuth.REQUIRE)
            .withProtocols("TLSv1.3")
            .withHostnameVerification(false);

    assertThat(changed.clientAuth()).isEqualTo(ClientAuth.REQUIRE);
    assertThat(changed.protocols()).containsExactly("TLSv1.3");
    assertThat(changed.hostnameVerification()).isFalse();
    assertThat(changed.certificateChain().orElseThrow().file()).contains(CHAIN);
    assertThat(original.clientAuth()).isEqualTo(ClientAuth.NONE);
    assertThat(original.protocols()).containsExactly("TLSv1.3", "TLSv1.2");
    assertThat(original.hostnameVerification()).isTrue();
  }

  @Test
  void certificateChainWithoutPrivateKeyIsRejected() {
    assertThatThrownBy(() -> TlsConfig.fromPem(CHAIN, null, CA))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("give both or neither");
    assertThatThrownBy(() -> TlsConfig.fromPem(null, KEY, CA))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void clientWithoutCertificateHasNoneOfItsOwn() {
    TlsConfig client = TlsConfig.fromPem(null, null, CA);

    assertThat(client.hasOwnCertificate()).isFalse();
    assertThat(client.certificateChain()).isEmpty();
    assertThat(client.privateKey()).isEmpty();
    assertThat(client.trustedCertificates().orElseThrow().file()).contains(CA);
  }

  @Test
  void emptyOrBlankProtocolListIsRejected() {
    TlsConfig config = TlsConfig.defaultClient();

    assertThatThrownBy(config::withProtocols).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> config.withProtocols("TLSv1.3", " "))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> config.withProtocols("TLSv1.3", null))
        .isInstanceOf(NullPointerException.class);
  }

  @Test
  void protocolListCannotBeChangedFromOutside() {
    String[] protocols = {"TLSv1.2"};
    TlsConfig config = TlsConfig.defaultClient().withProtocols(protocols);

    protocols[0] = "SSLv3";

    assertThat(config.protocols()).containsExactly("TLSv1.2");
    assertThatThrownBy(() -> config.protocols().add("SSLv3"))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void pemStreamsAreReadWhenTheConfigIsMadeAndLeftOpen() {
    ByteArrayInputStream trusted = stream("-----BEGIN CERTIFICATE-----");

    TlsConfig config = TlsConfig.fromPem(null, null, trusted);

    assertThat(trusted.available()).isZero();
    TlsConfig.Pem pem = config.trustedCertificates().orElseThrow();
    assertThat(pem.file()).isEmpty();
    assertThat(pem.origin()).isEqualTo("trusted certificates from a stream");
    assertThat(new String(pem.read(), StandardCharsets.US_ASCII))
        .isEqualTo("-----BEGIN CERTIFICATE-----");
  }

  @Test
  void unreadableStreamIsReportedAsIoFailure() {
    InputStream broken = InputStream.nullInputStream();
    try {
      broken.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }

    assertThatThrownBy(() -> TlsConfig.fromPem(null, null, broken))
        .isInstanceOf(UncheckedIOException.class)
        .hasMessage("cannot read TLS trusted certificates stream");
  }

  @Test
  void missingFileIsReportedByNameWhenRead() {
    TlsConfig.Pem key = TlsConfig.fromPem(CHAIN, KEY, null).privateKey().orElseThrow();

    assertThatThrownBy(key::read)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("cannot read TLS private key file " + KEY + ": no such file");
  }

  @Test
  void defaultClientHasNoCertificateAndTrustsTheJdkDefaults() {
    TlsConfig client = TlsConfig.defaultClient();

    assertThat(client.hasOwnCertificate()).isFalse();
    assertThat(client.trustedCertificates()).isEmpty();
    assertThat(client.trustManagerFactory()).isEmpty();
    assertThat(client.toString()).contains("certificate=none", "trust=JDK default");
  }

  @Test
  void factoriesMayBeGivenAlone() throws Exception {
    TrustManagerFactory trust =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());

    TlsConfig trustOnly = TlsConfig.fromFactories(null, trust);
    TlsConfig keysOnly = TlsConfig.fromFactories(keys, null);

    assertThat(trustOnly.hasOwnCertificate()).isFalse();
    assertThat(trustOnly.trustManagerFactory()).containsSame(trust);
    assertThat(keysOnly.hasOwnCertificate()).isTrue();
    assertThat(keysOnly.keyManagerFactory()).containsSame(keys);
    assertThat(keysOnly.trustedCertificates()).isEmpty();
  }

  @Test
  void descriptionNamesTheFilesAndNotTheirContents() {
    String description =
        TlsConfig.fromPem(CHAIN, KEY, null).withClientAuth(ClientAuth.OPTIONAL).toString();

    assertThat(description)
        .contains("certificate chain file " + CHAIN)
        .contains("private key file " + KEY)
        .contains("trust=JDK default")
        .contains("clientAuth=OPTIONAL");
    assertThat(TlsConfig.fromPem(stream("a"), stream("SECRET"), null).toString())
        .doesNotContain("SECRET")
        .contains("private key from a stream");
  }

  private static ByteArrayInputStream stream(String text) {
    return new ByteArrayInputStream(text.getBytes(StandardCharsets.US_ASCII));
  }
}
