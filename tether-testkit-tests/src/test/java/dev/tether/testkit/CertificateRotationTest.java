package dev.tether.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tether.ClientAuth;
import dev.tether.ConnectFailedException;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.TlsConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replacing a server's certificate while it serves: the PEM files are swapped for ones from another
 * CA the client also trusts, TLS is reloaded, and from then on new connections present the new
 * certificate while calls keep flowing on old and new connections, none failing.
 */
class CertificateRotationTest {
  @TempDir static Path generated;

  /** Generated once: key generation is the slow part of this class. */
  private static TestCertificates before;

  private static TestCertificates after;
  @TempDir Path dir;
  private Path liveChain;
  private Path liveKey;
  private Path trustBoth;
  private TetherServer server;
  private Tether tether;

  @BeforeAll
  static void generate() throws IOException {
    before = TestCertificates.createIn(Files.createDirectory(generated.resolve("before")));
    after = TestCertificates.createIn(Files.createDirectory(generated.resolve("after")));
  }

  @BeforeEach
  void liveFiles() throws IOException {
    Path live = Files.createDirectory(dir.resolve("live"));
    liveChain = Files.copy(before.server().certificateChain(), live.resolve("server.pem"));
    liveKey = Files.copy(before.server().privateKey(), live.resolve("server.key"));
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
    server.close();
  }

  private TetherServer.Builder serverWithLiveFiles() {
    return TetherServer.builder()
        .endpoints("ssl -h 127.0.0.1 -p 0")
        .tls(
            TlsConfig.fromPem(liveChain, liveKey, before.caCertificate())
                .withClientAuth(ClientAuth.NONE))
        .service("echo", (op, payload, ctx) -> payload);
  }

  /**
   * The new key lands first, then the certificate, each by an atomic rename, as deploy tools do.
   */
  private void rotateFiles() throws IOException {
    Path key = Files.copy(after.server().privateKey(), dir.resolve("next.key"));
    Path chain = Files.copy(after.server().certificateChain(), dir.resolve("next.pem"));
    for (Path p : List.of(key, chain)) {
      // A minute on, so a file system with coarse timestamps still shows the change to a watch.
      Files.setLastModifiedTime(p, FileTime.fromMillis(System.currentTimeMillis() + 60_000));
    }
    Files.move(key, liveKey, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    Files.move(
        chain, liveChain, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  private static X509Certificate firstOf(Path pem) throws Exception {
    return PresentedCertificate.firstOf(pem);
  }

  /** The certificate a fresh handshake with the server is shown. */
  private X509Certificate presentedToANewConnection() throws Exception {
    return PresentedCertificate.toANewConnection(trustBoth, server.endpoints().get(0).port());
  }

  @Test
  void certificateReplacedAndReloadedUnderLoadFailsNoCallAndNewConnectionsPresentTheNewOne()
      throws Exception {
    server = serverWithLiveFiles().build().start();
    tether = Tether.builder().tls(TlsConfig.fromPem(null, null, trustBoth)).build();
    Proxy shared = tether.proxy(server.proxyString("echo"));
    AtomicInteger ok = new AtomicInteger();
    List<Throwable> failures = new CopyOnWriteArrayList<>();
    AtomicBoolean running = new AtomicBoolean(true);
    List<Thread> workers = new ArrayList<>();
    for (int w = 0; w < 4; w++) {
      int worker = w;
      Thread t =
          new Thread(
              () -> {
                for (int n = 0; running.get(); n++) {
                  // Most calls share one long-lived connection; every 25th opens a new one, so
                  // handshakes
                  // happen all through the run, before, during and after the swap.
                  Proxy p = n % 25 == 0 ? shared.withConnectionId("w" + worker + "-" + n) : shared;
                  try {
                    byte[] answer =
                        p.invoke("echo", ("call " + n).getBytes(StandardCharsets.UTF_8));
                    if (new String(answer, StandardCharsets.UTF_8).equals("call " + n)) {
                      ok.incrementAndGet();
                    }
                  } catch (RuntimeException e) {
                    failures.add(e);
                  }
                }
              },
              "rotation-load-" + w);
      t.start();
      workers.add(t);
    }
    try {
      await().atMost(Duration.ofSeconds(30)).until(() -> ok.get() >= 200);
      assertThat(presentedToANewConnection())
          .isEqualTo(firstOf(before.server().certificateChain()));

      rotateFiles();
      server.reloadTls();
      int atReload = ok.get();

      assertThat(presentedToANewConnection()).isEqualTo(firstOf(after.server().certificateChain()));
      await().atMost(Duration.ofSeconds(30)).until(() -> ok.get() >= atReload + 200);
    } finally {
      running.set(false);
      for (Thread t : workers) {
        t.join(10_000);
      }
    }
    assertThat(failures).isEmpty();
  }

  @Test
  void watchedFilesAreReloadedAtTheFirstCheckAfterTheyChange() throws Exception {
    FakeClock clock = new FakeClock();
    server =
        serverWithLiveFiles()
            .scheduler(clock)
            .ticker(clock)
            .watchTls(Duration.ofSeconds(30))
            .build()
            .start();

    rotateFiles();
    assertThat(presentedToANewConnection()).isEqualTo(firstOf(before.server().certificateChain()));
    clock.forward(Duration.ofSeconds(30));

    // The check the clock made due runs on the server's control executor, which another of the
    // server's tasks may hold for a moment: the new certificate comes with its first run.
    X509Certificate next = firstOf(after.server().certificateChain());
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(presentedToANewConnection()).isEqualTo(next));
  }

  @Test
  void clientReloadPicksUpANewTrustFileForItsNextConnections() throws Exception {
    server = serverWithLiveFiles().build().start();
    rotateFiles();
    server.reloadTls();
    Path clientTrust = Files.copy(before.caCertificate(), dir.resolve("client-trust.pem"));
    tether = Tether.builder().tls(TlsConfig.fromPem(null, null, clientTrust)).build();
    Proxy p = tether.proxy(server.proxyString("echo"));
    assertThatThrownBy(() -> p.invoke("echo", new byte[0]))
        .isInstanceOf(ConnectFailedException.class);

    Files.copy(after.caCertificate(), clientTrust, StandardCopyOption.REPLACE_EXISTING);
    tether.reloadTls();

    assertThat(p.invoke("echo", "trusted now".getBytes(StandardCharsets.UTF_8)))
        .asString(StandardCharsets.UTF_8)
        .isEqualTo("trusted now");
  }

  @Test
  void clientWatchingItsTrustFileTrustsTheNewCaAtTheFirstCheckAfterItChanged() throws Exception {
    server = serverWithLiveFiles().build().start();
    rotateFiles();
    server.reloadTls();
    Path clientTrust = Files.copy(before.caCertificate(), dir.resolve("client-trust.pem"));
    FakeClock clock = new FakeClock();
    tether =
        Tether.builder()
            .tls(TlsConfig.fromPem(null, null, clientTrust))
            .scheduler(clock)
            .ticker(clock)
            .watchTls(Duration.ofSeconds(30))
            .build();
    Proxy p = tether.proxy(server.proxyString("echo"));
    assertThatThrownBy(() -> p.invoke("echo", new byte[0]))
        .isInstanceOf(ConnectFailedException.class);

    Files.copy(after.caCertificate(), clientTrust, StandardCopyOption.REPLACE_EXISTING);
    Files.setLastModifiedTime(
        clientTrust, FileTime.fromMillis(System.currentTimeMillis() + 60_000));
    clock.forward(Duration.ofSeconds(30));

    assertThat(p.invoke("echo", "trusted now".getBytes(StandardCharsets.UTF_8)))
        .asString(StandardCharsets.UTF_8)
        .isEqualTo("trusted now");
  }
}
