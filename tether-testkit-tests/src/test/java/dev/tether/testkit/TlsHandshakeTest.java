package dev.tether.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.ClientAuth;
import dev.tether.TlsConfig;
import dev.tether.transport.TlsContexts;
import io.netty.handler.ssl.SslContext;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Principal;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import javax.security.auth.x500.X500Principal;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS handshakes between contexts from {@link TlsContexts}, over real loopback sockets: what
 * succeeds, what is refused, and by which side.
 */
@Tag("integration")
class TlsHandshakeTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  @TempDir static Path directory;
  private static TestCertificates certificates;

  private final TlsLoopback loopback = new TlsLoopback();

  @BeforeAll
  static void generateCertificates() {
    certificates = TestCertificates.createIn(directory);
  }

  @AfterEach
  void stopLoopback() {
    loopback.close();
  }

  @Test
  void defaultConfigsNegotiateTls13AndEcho() {
    startServer(certificates.serverConfig(ClientAuth.NONE));

    TlsLoopback.Client client = connect(certificates.trustingClient());

    assertThat(client.echo("hello over TLS")).succeedsWithin(TIMEOUT).isEqualTo("hello over TLS");
    assertThat(client.handshake())
        .succeedsWithin(TIMEOUT)
        .extracting(SSLSession::getProtocol)
        .isEqualTo("TLSv1.3");
    assertThat(loopback.serverHandshake())
        .succeedsWithin(TIMEOUT)
        .extracting(SSLSession::getProtocol)
        .isEqualTo("TLSv1.3");
  }

  @Test
  void clientRestrictedToTls12NegotiatesTls12() {
    startServer(certificates.serverConfig(ClientAuth.NONE));

    TlsLoopback.Client client = connect(certificates.trustingClient().withProtocols("TLSv1.2"));

    assertThat(client.echo("old but fine")).succeedsWithin(TIMEOUT).isEqualTo("old but fine");
    assertThat(client.handshake())
        .succeedsWithin(TIMEOUT)
        .extracting(SSLSession::getProtocol)
        .isEqualTo("TLSv1.2");
    assertThat(loopback.serverHandshake())
        .succeedsWithin(TIMEOUT)
        .extracting(SSLSession::getProtocol)
        .isEqualTo("TLSv1.2");
  }

  @Test
  void serverRestrictedToTls13RefusesTls12OnlyClient() {
    startServer(certificates.serverConfig(ClientAuth.NONE).withProtocols("TLSv1.3"));

    TlsLoopback.Client client = connect(certificates.trustingClient().withProtocols("TLSv1.2"));

    assertHandshakeFails(loopback.serverHandshake());
    assertHandshakeFails(client.handshake());
  }

  @Test
  void requiredClientAuthAcceptsClientWithTrustedCertificate() throws Exception {
    startServer(certificates.serverConfig(ClientAuth.REQUIRE));

    TlsLoopback.Client client = connect(certificates.clientWithCertificate());

    assertThat(client.echo("it's me")).succeedsWithin(TIMEOUT).isEqualTo("it's me");
    assertThat(peerSeenByServer()).isEqualTo(new X500Principal(TestCertificates.CLIENT_SUBJECT));
  }

  @Test
  void requiredClientAuthRefusesClientWithoutCertificate() {
    startServer(certificates.serverConfig(ClientAuth.REQUIRE));

    TlsLoopback.Client client = connect(certificates.trustingClient());

    assertHandshakeFails(loopback.serverHandshake());
    assertFails(client.echo("let me in"));
  }

  @Test
  void requiredClientAuthRefusesClientCertificateFromUntrustedCa() {
    startServer(certificates.serverConfig(ClientAuth.REQUIRE));

    TlsLoopback.Client client = connect(certificates.clientWithUntrustedCertificate());

    assertHandshakeFails(loopback.serverHandshake());
    assertFails(client.echo("let me in"));
  }

  @Test
  void optionalClientAuthAcceptsClientWithoutCertificate() {
    startServer(certificates.serverConfig(ClientAuth.OPTIONAL));

    TlsLoopback.Client client = connect(certificates.trustingClient());

    assertThat(client.echo("anonymous")).succeedsWithin(TIMEOUT).isEqualTo("anonymous");
    assertThat(loopback.serverHandshake()).succeedsWithin(TIMEOUT);
    assertThatThrownBy(() -> loopback.serverHandshake().join().getPeerCertificates())
        .isInstanceOf(SSLPeerUnverifiedException.class);
  }

  @Test
  void optionalClientAuthIdentifiesClientThatOffersTrustedCertificate() throws Exception {
    startServer(certificates.serverConfig(ClientAuth.OPTIONAL));

    TlsLoopback.Client client = connect(certificates.clientWithCertificate());

    assertThat(client.echo("it's me")).succeedsWithin(TIMEOUT).isEqualTo("it's me");
    assertThat(peerSeenByServer()).isEqualTo(new X500Principal(TestCertificates.CLIENT_SUBJECT));
  }

  @Test
  void optionalClientAuthLetsClientWithUntrustedCertificateConnectAnonymously() {
    startServer(certificates.serverConfig(ClientAuth.OPTIONAL));

    // The server names the CAs it trusts; a JDK client offers no certificate outside them.
    TlsLoopback.Client client = connect(certificates.clientWithUntrustedCertificate());

    assertThat(client.echo("anonymous after all"))
        .succeedsWithin(TIMEOUT)
        .isEqualTo("anonymous after all");
    assertThatThrownBy(() -> loopback.serverHandshake().join().getPeerCertificates())
        .isInstanceOf(SSLPeerUnverifiedException.class);
  }

  @Test
  void noClientAuthDoesNotAskForTheClientsCertificate() {
    startServer(certificates.serverConfig(ClientAuth.NONE));

    TlsLoopback.Client client = connect(certificates.clientWithCertificate());

    assertThat(client.echo("unasked")).succeedsWithin(TIMEOUT).isEqualTo("unasked");
    assertThatThrownBy(() -> loopback.serverHandshake().join().getPeerCertificates())
        .isInstanceOf(SSLPeerUnverifiedException.class);
  }

  @Test
  void clientRefusesServerWhoseCaItDoesNotTrust() {
    startServer(certificates.serverConfig(ClientAuth.NONE));

    TlsLoopback.Client client = connect(certificates.clientTrustingAnotherCa());

    assertHandshakeFails(client.handshake());
    assertFails(client.echo("hello?"));
  }

  @Test
  void hostnameVerificationAcceptsCertificateNamingTheDialledHost() {
    startServer(certificates.serverConfig(ClientAuth.NONE));
    SslContext verifying = TlsContexts.forClient(certificates.trustingClient());

    TlsLoopback.Client byName = loopback.connect(verifying, "localhost");
    TlsLoopback.Client byAddress = loopback.connect(verifying, "127.0.0.1");

    assertThat(byName.echo("by name")).succeedsWithin(TIMEOUT).isEqualTo("by name");
    assertThat(byAddress.echo("by address")).succeedsWithin(TIMEOUT).isEqualTo("by address");
  }

  @Test
  void hostnameVerificationRefusesCertificateNotNamingTheDialledHost() {
    startServer(certificates.serverConfig(ClientAuth.NONE));
    TlsConfig verifying = certificates.trustingClient();

    TlsLoopback.Client client =
        loopback.connect(TlsContexts.forClient(verifying), "someone-else.example");

    assertHandshakeFails(client.handshake());
  }

  @Test
  void hostnameVerificationRefusesServerWhenTheDialledHostIsUnknown() {
    startServer(certificates.serverConfig(ClientAuth.NONE));
    TlsConfig verifying = certificates.trustingClient();

    TlsLoopback.Client client = loopback.connect(TlsContexts.forClient(verifying), null);

    assertHandshakeFails(client.handshake());
  }

  @Test
  void withoutHostnameVerificationAnyCertificateFromTrustedCaIsAccepted() {
    startServer(certificates.serverConfig(ClientAuth.NONE));

    TlsLoopback.Client client =
        loopback.connect(
            TlsContexts.forClient(certificates.trustingClient().withHostnameVerification(false)),
            "someone-else.example");

    assertThat(client.echo("trusting the CA")).succeedsWithin(TIMEOUT).isEqualTo("trusting the CA");
  }

  @Test
  void configsFromPemStreamsHandshake() throws Exception {
    TlsConfig server;
    try (InputStream chain = Files.newInputStream(certificates.server().certificateChain());
        InputStream key = Files.newInputStream(certificates.server().privateKey());
        InputStream trusted = Files.newInputStream(certificates.caCertificate())) {
      server = TlsConfig.fromPem(chain, key, trusted).withClientAuth(ClientAuth.REQUIRE);
    }
    startServer(server);
    TlsConfig client =
        TlsConfig.fromPem(
            new ByteArrayInputStream(Files.readAllBytes(certificates.client().certificateChain())),
            new ByteArrayInputStream(Files.readAllBytes(certificates.client().privateKey())),
            new ByteArrayInputStream(Files.readAllBytes(certificates.caCertificate())));

    assertThat(connect(client).echo("streamed")).succeedsWithin(TIMEOUT).isEqualTo("streamed");
  }

  @Test
  void configsFromFactoriesHandshake() throws Exception {
    // Self-signed authorities, each trusted directly by the other side.
    X509Bundle server = selfSigned("CN=factory-server");
    X509Bundle client = selfSigned("CN=factory-client");
    startServer(
        TlsConfig.fromFactories(server.toKeyManagerFactory(), client.toTrustManagerFactory())
            .withClientAuth(ClientAuth.REQUIRE));

    // The self-signed server certificate names no host: this test is about the factories.
    TlsLoopback.Client connection =
        connect(
            TlsConfig.fromFactories(client.toKeyManagerFactory(), server.toTrustManagerFactory())
                .withHostnameVerification(false));

    assertThat(connection.echo("from factories"))
        .succeedsWithin(TIMEOUT)
        .isEqualTo("from factories");
    assertThat(peerSeenByServer()).isEqualTo(new X500Principal("CN=factory-client"));
  }

  private static X509Bundle selfSigned(String subject) throws Exception {
    return new CertificateBuilder()
        .subject(subject)
        .setIsCertificateAuthority(true)
        .buildSelfSigned();
  }

  private void startServer(TlsConfig config) {
    loopback.start(TlsContexts.forServer(config));
  }

  private TlsLoopback.Client connect(TlsConfig config) {
    return loopback.connect(TlsContexts.forClient(config));
  }

  private Principal peerSeenByServer() throws Exception {
    return loopback.serverHandshake().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS).getPeerPrincipal();
  }

  /** The future fails, promptly: a refused connection never hangs. */
  private static void assertFails(CompletableFuture<?> future) {
    assertThatThrownBy(() -> future.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class);
  }

  private static void assertHandshakeFails(CompletableFuture<SSLSession> handshake) {
    assertThatThrownBy(() -> handshake.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(SSLHandshakeException.class);
  }
}
