package dev.tether.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.ClientAuth;
import dev.tether.TlsConfig;
import dev.tether.transport.TlsContexts;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.net.ssl.SSLEngine;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@link TlsContexts} makes of a {@link TlsConfig}, read off the engines its contexts create,
 * and how it reports bad material. No sockets: {@link TlsHandshakeTest} covers real handshakes.
 */
class TlsContextsTest {
  @TempDir static Path certificateDirectory;
  private static TestCertificates certificates;

  @TempDir Path directory;

  @BeforeAll
  static void generateCertificates() {
    certificates = TestCertificates.createIn(certificateDirectory);
  }

  @Test
  void serverContextOffersTheConfiguredProtocols() {
    SSLEngine engine = serverEngine(certificates.serverConfig(ClientAuth.NONE));

    assertThat(engine.getUseClientMode()).isFalse();
    assertThat(engine.getEnabledProtocols()).containsExactlyInAnyOrder("TLSv1.3", "TLSv1.2");
  }

  @Test
  void clientContextOffersTheConfiguredProtocols() {
    SSLEngine engine = clientEngine(certificates.trustingClient().withProtocols("TLSv1.2"));

    assertThat(engine.getUseClientMode()).isTrue();
    assertThat(engine.getEnabledProtocols()).containsExactly("TLSv1.2");
  }

  @Test
  void clientAuthMapsOntoTheServerEngine() {
    SSLEngine none = serverEngine(certificates.serverConfig(ClientAuth.NONE));
    SSLEngine optional = serverEngine(certificates.serverConfig(ClientAuth.OPTIONAL));
    SSLEngine required = serverEngine(certificates.serverConfig(ClientAuth.REQUIRE));

    assertThat(none.getWantClientAuth() || none.getNeedClientAuth()).isFalse();
    assertThat(optional.getWantClientAuth()).isTrue();
    assertThat(optional.getNeedClientAuth()).isFalse();
    assertThat(required.getNeedClientAuth()).isTrue();
  }

  @Test
  void clientVerifiesHostnamesUnlessTurnedOff() {
    TlsConfig client = certificates.trustingClient();

    assertThat(endpointIdentification(clientEngine(client))).isEqualTo("HTTPS");
    assertThat(endpointIdentification(clientEngine(client.withHostnameVerification(false))))
        .isNull();
  }

  @Test
  void clientWithoutTrustedCertificatesBuildsOnTheJdkDefaultTrust() {
    assertThat(TlsContexts.forClient(TlsConfig.defaultClient()).isClient()).isTrue();
  }

  @Test
  void serverWithoutCertificateOfItsOwnIsRejected() {
    TlsConfig config = certificates.trustingClient();

    assertThatThrownBy(() -> TlsContexts.forServer(config))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("needs a certificate and private key");
  }

  @Test
  void missingCertificateChainFileIsNamed() {
    Path missing = directory.resolve("missing.pem");
    TlsConfig config = TlsConfig.fromPem(missing, certificates.server().privateKey(), null);

    assertThatThrownBy(() -> TlsContexts.forServer(config))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("cannot read TLS certificate chain file " + missing + ": no such file");
  }

  @Test
  void certificateChainFileWithoutCertificatesIsNamed() throws Exception {
    Path garbage = Files.writeString(directory.resolve("garbage.pem"), "not a certificate");
    TlsConfig config = TlsConfig.fromPem(garbage, certificates.server().privateKey(), null);

    assertThatThrownBy(() -> TlsContexts.forServer(config))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("TLS certificate chain file " + garbage + " holds no");
  }

  @Test
  void privateKeyFileWithoutKeyIsNamed() {
    Path notAKey = certificates.caCertificate();
    TlsConfig config = TlsConfig.fromPem(certificates.client().certificateChain(), notAKey, null);

    assertThatThrownBy(() -> TlsContexts.forClient(config))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "TLS private key file " + notAKey + " holds no unencrypted PKCS#8 PEM private key");
  }

  @Test
  void trustedCertificatesFileWithoutCertificatesIsNamed() throws Exception {
    Path empty = Files.writeString(directory.resolve("empty.pem"), "");
    TlsConfig config = TlsConfig.fromPem(null, null, empty);

    assertThatThrownBy(() -> TlsContexts.forClient(config))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("TLS trusted certificates file " + empty + " holds no PEM certificate");
  }

  @Test
  void unsupportedProtocolIsRejectedWhenBuildingNotWhenConnecting() {
    TlsConfig config = certificates.trustingClient().withProtocols("TLSv1.3", "TLSv9");

    assertThatThrownBy(() -> TlsContexts.forClient(config))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("TLS protocol TLSv9 is not supported here");
  }

  @Test
  void pemFilesAreReadAgainForEachContextBuilt() throws Exception {
    Path chain = directory.resolve("server.pem");
    Path key = directory.resolve("server.key");
    Files.copy(certificates.server().certificateChain(), chain);
    Files.copy(certificates.server().privateKey(), key);
    TlsConfig config = TlsConfig.fromPem(chain, key, null);
    TlsContexts.forServer(config);

    Files.delete(chain);

    assertThatThrownBy(() -> TlsContexts.forServer(config)).hasMessageContaining(chain.toString());
  }

  private static SSLEngine serverEngine(TlsConfig config) {
    return TlsContexts.forServer(config).newEngine(ByteBufAllocator.DEFAULT);
  }

  private static SSLEngine clientEngine(TlsConfig config) {
    SslContext context = TlsContexts.forClient(config);
    return context.newEngine(ByteBufAllocator.DEFAULT, "localhost", 4061);
  }

  private static String endpointIdentification(SSLEngine engine) {
    return engine.getSSLParameters().getEndpointIdentificationAlgorithm();
  }
}
