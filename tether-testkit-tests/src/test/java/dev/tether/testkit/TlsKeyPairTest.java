package dev.tether.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tether.ClientAuth;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.TlsConfig;
import dev.tether.observe.TetherEvent;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A private key and certificate that do not belong together are never installed: a server or client
 * built with such a pair fails naming both files, and a reload that finds one keeps the context in
 * force, so a rotation written one file at a time never breaks a new handshake.
 */
class TlsKeyPairTest {
  private static final Duration POLL = Duration.ofSeconds(30);

  @TempDir static Path generated;

  /** Two identities from two CAs the client trusts both of: generated once, slow to make. */
  private static TestCertificates before;

  private static TestCertificates after;
  @TempDir Path dir;
  private Path liveChain;
  private Path liveKey;
  private Path trustBoth;
  private final List<TetherEvent> serverEvents = new CopyOnWriteArrayList<>();
  private final AtomicInteger connections = new AtomicInteger();
  private TetherServer server;
  private Tether tether;

  @BeforeAll
  static void generate() throws IOException {
    before = TestCertificates.createIn(Files.createDirectory(generated.resolve("before")));
    after = TestCertificates.createIn(Files.createDirectory(generated.resolve("after")));
  }

  @BeforeEach
  void liveFiles() throws IOException {
    liveChain = Files.copy(before.server().certificateChain(), dir.resolve("server.pem"));
    liveKey = Files.copy(before.server().privateKey(), dir.resolve("server.key"));
    trustBoth = dir.resolve("trust.pem");
    Files.writeString(
        trustBoth,
        Files.readString(before.caCertificate()) + Files.readString(after.caCertificate()));
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

  private static TetherServer.Builder serverWith(TlsConfig tls) {
    return TetherServer.builder()
        .endpoints("ssl -h 127.0.0.1 -p 0")
        .tls(tls)
        .service("echo", (op, payload, ctx) -> payload);
  }

  private void startWatchedServer(FakeClock clock) {
    server =
        serverWith(TlsConfig.fromPem(liveChain, liveKey, null))
            .listener(serverEvents::add)
            .scheduler(clock)
            .ticker(clock)
            .watchTls(POLL)
            .build()
            .start();
    tether = Tether.builder().tls(TlsConfig.fromPem(null, null, trustBoth)).build();
  }

  /** A call over a connection of its own, so it needs a handshake with the context in force. */
  private String callOnANewConnection() {
    byte[] answer =
        tether
            .proxy(server.proxyString("echo"))
            .withConnectionId("new-" + connections.incrementAndGet())
            .invoke("echo", "hi".getBytes(StandardCharsets.UTF_8));
    return new String(answer, StandardCharsets.UTF_8);
  }

  /** Replaces a live file, its time a minute on so that even a coarse file system shows it. */
  private static void replace(Path live, Path with, int minutes) throws IOException {
    Files.write(live, Files.readAllBytes(with));
    Files.setLastModifiedTime(
        live, FileTime.fromMillis(System.currentTimeMillis() + minutes * 60_000L));
  }

  private void assertPresented(TestCertificates identity) throws Exception {
    assertThat(PresentedCertificate.toANewConnection(trustBoth, server.endpoints().get(0).port()))
        .isEqualTo(PresentedCertificate.firstOf(identity.server().certificateChain()));
  }

  @Test
  void serverStartedWithAKeyThatIsNotItsCertificatesFailsNamingBothFiles() {
    TlsConfig mismatched =
        TlsConfig.fromPem(before.server().certificateChain(), after.server().privateKey(), null);

    assertThatThrownBy(() -> serverWith(mismatched).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(after.server().privateKey().toString())
        .hasMessageContaining(before.server().certificateChain().toString())
        .hasMessageContaining("not the private key of the certificate");
  }

  @Test
  void clientBuiltWithAKeyThatIsNotItsCertificatesFailsNamingBothFiles() {
    TlsConfig mismatched =
        TlsConfig.fromPem(
            before.client().certificateChain(), after.client().privateKey(), trustBoth);

    assertThatThrownBy(() -> Tether.builder().tls(mismatched).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(after.client().privateKey().toString())
        .hasMessageContaining(before.client().certificateChain().toString());
  }

  @Test
  void clientReloadOfAMismatchedCertificatePairKeepsItsCertificateAndItsCalls() throws Exception {
    server =
        serverWith(
                TlsConfig.fromPem(
                        before.server().certificateChain(),
                        before.server().privateKey(),
                        before.caCertificate())
                    .withClientAuth(ClientAuth.REQUIRE))
            .build()
            .start();
    Path clientChain = Files.copy(before.client().certificateChain(), dir.resolve("client.pem"));
    Path clientKey = Files.copy(before.client().privateKey(), dir.resolve("client.key"));
    List<TetherEvent> clientEvents = new CopyOnWriteArrayList<>();
    tether =
        Tether.builder()
            .tls(TlsConfig.fromPem(clientChain, clientKey, trustBoth))
            .listener(clientEvents::add)
            .build();
    replace(clientKey, after.client().privateKey(), 1);

    assertThatThrownBy(tether::reloadTls)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(clientKey.toString());

    assertThat(callOnANewConnection()).isEqualTo("hi");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> kinds(clientEvents).contains(TetherEvent.Kind.TLS_RELOAD_REFUSED));
  }

  @Test
  void chainWhoseCertificateIsNotSignedByTheNextIsRefusedNamingTheFile() throws IOException {
    Path chain = dir.resolve("wrong-chain.pem");
    Files.writeString(
        chain,
        Files.readString(before.server().certificateChain())
            + Files.readString(after.caCertificate()));

    assertThatThrownBy(
            () -> serverWith(TlsConfig.fromPem(chain, before.server().privateKey(), null)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(chain.toString())
        .hasMessageContaining("is not signed by the next one");
  }

  @Test
  void mismatchedReloadKeepsThePreviousContextAndSaysWhyInAnEvent() throws Exception {
    server =
        serverWith(TlsConfig.fromPem(liveChain, liveKey, null))
            .listener(serverEvents::add)
            .build()
            .start();
    tether = Tether.builder().tls(TlsConfig.fromPem(null, null, trustBoth)).build();
    replace(liveKey, after.server().privateKey(), 1);

    assertThatThrownBy(server::reloadTls)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(liveKey.toString());

    assertThat(callOnANewConnection()).isEqualTo("hi");
    assertPresented(before);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> kinds(serverEvents).contains(TetherEvent.Kind.TLS_RELOAD_REFUSED));
    assertThat(serverEvents)
        .filteredOn(e -> e.kind() == TetherEvent.Kind.TLS_RELOAD_REFUSED)
        .first()
        .satisfies(e -> assertThat(e.detail()).contains("the previous one stays"));
  }

  @Test
  void rotationWrittenKeyFirstNeverBreaksANewHandshake() throws Exception {
    FakeClock clock = new FakeClock();
    startWatchedServer(clock);
    assertThat(callOnANewConnection()).isEqualTo("hi");

    replace(liveKey, after.server().privateKey(), 1);
    clock.forward(POLL);
    assertThat(callOnANewConnection())
        .as("new key, old certificate: old pair stays")
        .isEqualTo("hi");
    assertPresented(before);

    replace(liveChain, after.server().certificateChain(), 2);
    clock.forward(POLL);
    assertThat(callOnANewConnection()).isEqualTo("hi");
    assertPresented(after);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                kinds(serverEvents)
                    .equals(
                        List.of(
                            TetherEvent.Kind.TLS_RELOAD_REFUSED, TetherEvent.Kind.TLS_RELOADED)));
  }

  @Test
  void rotationWrittenCertificateFirstNeverBreaksANewHandshake() throws Exception {
    FakeClock clock = new FakeClock();
    startWatchedServer(clock);

    replace(liveChain, after.server().certificateChain(), 1);
    clock.forward(POLL);
    assertThat(callOnANewConnection())
        .as("new certificate, old key: old pair stays")
        .isEqualTo("hi");
    assertPresented(before);

    replace(liveKey, after.server().privateKey(), 2);
    clock.forward(POLL);
    assertThat(callOnANewConnection()).isEqualTo("hi");
    assertPresented(after);
  }

  /** The TLS reload events among {@code events}, in order. */
  private static List<TetherEvent.Kind> kinds(List<TetherEvent> events) {
    return events.stream()
        .map(TetherEvent::kind)
        .filter(k -> k == TetherEvent.Kind.TLS_RELOADED || k == TetherEvent.Kind.TLS_RELOAD_REFUSED)
        .toList();
  }
}
