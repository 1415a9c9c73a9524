package dev.tether.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tether.ClientAuth;
import dev.tether.ConnectFailedException;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.TlsConfig;
import dev.tether.observe.TetherEvent;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.CertificateBuilder.Algorithm;
import io.netty.pkitesting.CertificateBuilder.KeyUsage;
import io.netty.pkitesting.X509Bundle;
import java.io.IOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x509.CRLReason;
import org.bouncycastle.cert.X509v2CRLBuilder;
import org.bouncycastle.cert.jcajce.JcaX509v2CRLBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A careless operator's and a hostile peer's TLS material over real loopback TLS: keys of other
 * algorithms and encodings, chains in the wrong order or missing a link, rotations that race
 * handshakes, certificates naming a host only in their CN, revocation lists expired or from another
 * issuer. Whatever builds must serve; whatever cannot serve must fail at build or reload.
 */
class TlsAttackTest {
  @TempDir static Path shared;
  @TempDir Path dir;

  /** root -> intermediate -> leaves A and B (each naming 127.0.0.1); root -> a client. */
  private static X509Bundle root;

  private static X509Bundle intermediate;
  private static X509Bundle leafA;
  private static X509Bundle leafB;
  private static X509Bundle otherRoot;
  private static Path rootFile;

  private TetherServer server;
  private Tether tether;
  private final AtomicInteger connections = new AtomicInteger();

  @BeforeAll
  static void authorities() throws Exception {
    root = ca("CN=Attack root").buildSelfSigned();
    otherRoot = ca("CN=Another root").buildSelfSigned();
    intermediate = ca("CN=Attack intermediate").buildIssuedBy(root);
    leafA = serverLeaf("CN=leaf A").buildIssuedBy(intermediate);
    leafB = serverLeaf("CN=leaf B").buildIssuedBy(intermediate);
    rootFile = Files.writeString(shared.resolve("root.pem"), root.getCertificatePEM());
  }

  private static CertificateBuilder ca(String subject) {
    return new CertificateBuilder()
        .subject(subject)
        .setIsCertificateAuthority(true)
        .setKeyUsage(true, KeyUsage.keyCertSign, KeyUsage.cRLSign);
  }

  private static CertificateBuilder serverLeaf(String subject) {
    return new CertificateBuilder()
        .subject(subject)
        .setKeyUsage(true, KeyUsage.digitalSignature)
        .addSanIpAddress("127.0.0.1")
        .addExtendedKeyUsageServerAuth();
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

  private Path file(String name, String text) throws IOException {
    return Files.writeString(dir.resolve(name), text, StandardCharsets.US_ASCII);
  }

  /** Leaf, then intermediate: what a server sends so that a client trusting the root verifies. */
  private static String chainOf(X509Bundle leaf) throws Exception {
    return pem("CERTIFICATE", leaf.getCertificate().getEncoded())
        + pem("CERTIFICATE", intermediate.getCertificate().getEncoded());
  }

  private static String pem(String label, byte[] der) {
    return "-----BEGIN "
        + label
        + "-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
        + "\n-----END "
        + label
        + "-----\n";
  }

  private TetherServer.Builder serverWith(TlsConfig tls) {
    return TetherServer.builder()
        .endpoints("ssl -h 127.0.0.1 -p 0")
        .tls(tls)
        .service("echo", (op, payload, ctx) -> payload);
  }

  private void serve(TlsConfig tls) {
    server = serverWith(tls).build().start();
  }

  private String callOnANewConnection(TlsConfig clientTls) {
    if (tether == null) {
      tether = Tether.builder().tls(clientTls).property("tether.retry.intervals", "0").build();
    }
    byte[] answer =
        tether
            .proxy(server.proxyString("echo"))
            .withConnectionId("c" + connections.incrementAndGet())
            .invoke("echo", "hi".getBytes(StandardCharsets.UTF_8));
    return new String(answer, StandardCharsets.UTF_8);
  }

  private static TlsConfig trustingRoot() {
    return TlsConfig.fromPem(null, null, rootFile);
  }

  // ---- chains ----

  /**
   * A chain file written certificate by certificate ({@code cat leaf.pem > chain.pem; cat
   * intermediate.pem >> chain.pem}) read between the two: a leaf without its intermediate, which
   * its own key matches. Installed, it fails every client that trusts only the root.
   */
  @Test
  void reloadThatFindsALeafWithoutItsIntermediateKeepsServingNewHandshakes() throws Exception {
    Path chain = file("chain.pem", chainOf(leafA));
    Path key = file("key.pem", leafA.getPrivateKeyPEM());
    serve(TlsConfig.fromPem(chain, key, null));
    assertThat(callOnANewConnection(trustingRoot())).isEqualTo("hi");

    Files.writeString(key, leafB.getPrivateKeyPEM());
    Files.writeString(chain, pem("CERTIFICATE", leafB.getCertificate().getEncoded()));
    try {
      server.reloadTls();
    } catch (IllegalArgumentException refusedIsFine) {
      // the reload may refuse a chain that cannot reach a trust anchor: the old one stays
    }

    assertThat(callOnANewConnection(trustingRoot())).isEqualTo("hi");
  }

  @Test
  void chainWithTheRootIncludedServes() throws Exception {
    Path chain = file("chain.pem", chainOf(leafA) + root.getCertificatePEM());
    serve(TlsConfig.fromPem(chain, file("key.pem", leafA.getPrivateKeyPEM()), null));

    assertThat(callOnANewConnection(trustingRoot())).isEqualTo("hi");
  }

  @Test
  void chainListedIssuerFirstIsRefusedAtBuildNamingTheFile() throws Exception {
    Path chain =
        file(
            "reversed.pem",
            pem("CERTIFICATE", intermediate.getCertificate().getEncoded())
                + pem("CERTIFICATE", leafA.getCertificate().getEncoded()));
    Path key = file("key.pem", leafA.getPrivateKeyPEM());

    assertThatThrownBy(() -> serverWith(TlsConfig.fromPem(chain, key, null)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(chain.toString());
  }

  @Test
  void selfSignedLeafServesAClientThatTrustsIt() throws Exception {
    X509Bundle self =
        serverLeaf("CN=self")
            .setIsCertificateAuthority(true)
            .setKeyUsage(true, KeyUsage.digitalSignature, KeyUsage.keyCertSign)
            .buildSelfSigned();
    Path cert = file("self.pem", self.getCertificatePEM());
    serve(TlsConfig.fromPem(cert, file("self.key", self.getPrivateKeyPEM()), null));

    assertThat(callOnANewConnection(TlsConfig.fromPem(null, null, cert))).isEqualTo("hi");
  }

  // ---- keys ----

  /**
   * Netty reads the first block whose label ends in PRIVATE KEY; the pair check reads the first
   * labelled exactly PRIVATE KEY. A file whose first block (under another label) is some other key
   * passes the check with the second and is installed with the first.
   */
  @Test
  void keyFileWhoseFirstBlockIsAnotherKeyIsRefusedOrServes() throws Exception {
    Path chain = file("chain.pem", chainOf(leafA));
    Path key =
        file(
            "two-keys.pem",
            pem("EC PRIVATE KEY", leafB.getKeyPair().getPrivate().getEncoded())
                + leafA.getPrivateKeyPEM());

    TetherServer built;
    try {
      built = serverWith(TlsConfig.fromPem(chain, key, null)).build();
    } catch (IllegalArgumentException refused) {
      return; // refused at build: fine
    }
    server = built.start();
    assertThat(callOnANewConnection(trustingRoot())).as("built, so it must serve").isEqualTo("hi");
  }

  @Test
  void pkcs1RsaKeyIsRefusedAtBuildSayingPkcs8IsNeeded() throws Exception {
    X509Bundle rsa = serverLeaf("CN=rsa").algorithm(Algorithm.rsa2048).buildIssuedBy(root);
    byte[] pkcs1 =
        PrivateKeyInfo.getInstance(rsa.getKeyPair().getPrivate().getEncoded())
            .parsePrivateKey()
            .toASN1Primitive()
            .getEncoded();
    Path chain = file("rsa.pem", rsa.getCertificatePEM());
    Path key = file("rsa-pkcs1.key", pem("RSA PRIVATE KEY", pkcs1));

    assertThatThrownBy(() -> serverWith(TlsConfig.fromPem(chain, key, null)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(key.toString())
        .hasMessageContaining("PKCS#8");
  }

  @Test
  void encryptedKeyIsRefusedAtBuildNamingTheFile() throws Exception {
    java.io.StringWriter text = new java.io.StringWriter();
    try (org.bouncycastle.openssl.jcajce.JcaPEMWriter writer =
        new org.bouncycastle.openssl.jcajce.JcaPEMWriter(text)) {
      writer.writeObject(
          new org.bouncycastle.openssl.jcajce.JcaPKCS8Generator(
              leafA.getKeyPair().getPrivate(),
              new org.bouncycastle.openssl.jcajce.JceOpenSSLPKCS8EncryptorBuilder(
                      org.bouncycastle.openssl.PKCS8Generator.AES_256_CBC)
                  .setProvider(new org.bouncycastle.jce.provider.BouncyCastleProvider())
                  .setPassword("secret".toCharArray())
                  .build()));
    }
    assertThat(text.toString()).startsWith("-----BEGIN ENCRYPTED PRIVATE KEY-----");
    Path key = file("encrypted.key", text.toString());
    Path chain = file("chain.pem", chainOf(leafA));

    assertThatThrownBy(() -> serverWith(TlsConfig.fromPem(chain, key, null)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(key.toString());
  }

  @Test
  void ed25519PairServes() throws Exception {
    X509Bundle ed = serverLeaf("CN=ed").algorithm(Algorithm.ed25519).buildIssuedBy(root);
    serve(
        TlsConfig.fromPem(
            file("ed.pem", ed.getCertificatePEM()), file("ed.key", ed.getPrivateKeyPEM()), null));

    assertThat(callOnANewConnection(trustingRoot())).isEqualTo("hi");
  }

  @Test
  void ecCertificateWithAnRsaKeyIsRefusedNamingBothFiles() throws Exception {
    X509Bundle rsa = serverLeaf("CN=rsa").algorithm(Algorithm.rsa2048).buildIssuedBy(root);
    Path chain = file("chain.pem", chainOf(leafA));
    Path key = file("rsa.key", rsa.getPrivateKeyPEM());

    assertThatThrownBy(() -> serverWith(TlsConfig.fromPem(chain, key, null)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(chain.toString())
        .hasMessageContaining(key.toString());
  }

  /** RSASSA-PSS keys are skipped by the pair check ("left to the handshake"). */
  @Test
  void rsassaPssCertificateWithAnotherPssKeyIsRefusedOrServes() throws Exception {
    KeyPairGenerator pss = KeyPairGenerator.getInstance("RSASSA-PSS");
    pss.initialize(2048);
    KeyPair mine = pss.generateKeyPair();
    KeyPair other = pss.generateKeyPair();
    X509Bundle leaf = serverLeaf("CN=pss").keyPair(mine).buildIssuedBy(root);
    Path chain = file("pss.pem", leaf.getCertificatePEM());
    Path key = file("other-pss.key", pem("PRIVATE KEY", other.getPrivate().getEncoded()));

    TetherServer built;
    try {
      built = serverWith(TlsConfig.fromPem(chain, key, null)).build();
    } catch (IllegalArgumentException refused) {
      return;
    }
    server = built.start();
    assertThat(callOnANewConnection(trustingRoot())).as("built, so it must serve").isEqualTo("hi");
  }

  // ---- rotation racing handshakes ----

  /**
   * Rotates A -> B -> A ... with a reload after each file is renamed into place (as a watch's poll
   * would find it: half the reloads see a key and certificate that do not match), while another
   * thread makes a new connection per call. No handshake may fail. Explicit reloads stand for the
   * watch here: a fake clock pushed forward would also fire the server's own connection timers.
   */
  @Test
  void reloadsRacingNewHandshakesNeverFailOne() throws Exception {
    Path chain = file("chain.pem", chainOf(leafA));
    Path key = file("key.pem", leafA.getPrivateKeyPEM());
    serve(TlsConfig.fromPem(chain, key, null));
    callOnANewConnection(trustingRoot());
    List<String> failures = new CopyOnWriteArrayList<>();
    AtomicBoolean rotating = new AtomicBoolean(true);
    AtomicInteger calls = new AtomicInteger();
    CompletableFuture<Void> caller =
        CompletableFuture.runAsync(
            () -> {
              while ((rotating.get() || calls.get() < 20) && calls.get() < 2000) {
                calls.incrementAndGet();
                try {
                  callOnANewConnection(trustingRoot());
                } catch (RuntimeException e) {
                  failures.add(e.toString());
                }
              }
            });
    int refused = 0;
    try {
      for (int i = 0; i < 60; i++) {
        X509Bundle next = i % 2 == 0 ? leafB : leafA;
        Path[] order = i % 4 < 2 ? new Path[] {key, chain} : new Path[] {chain, key};
        for (Path live : order) {
          String text = live == key ? next.getPrivateKeyPEM() : chainOf(next);
          Path staged = Files.writeString(dir.resolve("staged"), text);
          Files.move(staged, live, StandardCopyOption.ATOMIC_MOVE);
          try {
            server.reloadTls();
          } catch (IllegalArgumentException mismatch) {
            refused++;
          }
        }
      }
    } finally {
      rotating.set(false);
    }
    caller.get();

    assertThat(refused).isEqualTo(60);
    assertThat(calls.get()).isGreaterThan(20);
    assertThat(failures).as("of %d calls", calls.get()).isEmpty();
  }

  /**
   * An in-place rewrite (truncate, then write in two pieces) read by the watch between the pieces:
   * a half-written key or chain never reaches a handshake.
   */
  @Test
  void watchThatReadsAHalfWrittenFileKeepsServing() throws Exception {
    AtomicInteger reloads = new AtomicInteger();
    Path chain = file("chain.pem", chainOf(leafA));
    Path key = file("key.pem", leafA.getPrivateKeyPEM());
    FakeClock clock = new FakeClock();
    Duration poll = Duration.ofSeconds(10);
    server =
        serverWith(TlsConfig.fromPem(chain, key, null))
            .listener(
                e -> {
                  if (e.kind() == TetherEvent.Kind.TLS_RELOADED
                      || e.kind() == TetherEvent.Kind.TLS_RELOAD_REFUSED) {
                    reloads.incrementAndGet();
                  }
                })
            .scheduler(clock)
            .ticker(clock)
            .watchTls(poll)
            .build()
            .start();
    String newKey = leafB.getPrivateKeyPEM();
    int looks = 0;
    String newChain = chainOf(leafB);
    long minutes = 1;
    for (String[] write :
        new String[][] {
          {"key", newKey.substring(0, newKey.length() / 2)},
          {"key", newKey},
          {"chain", newChain.substring(0, newChain.length() / 3)},
          {"chain", newChain.substring(0, newChain.indexOf("-----END CERTIFICATE-----") + 26)},
          {"chain", newChain},
        }) {
      Path live = write[0].equals("key") ? key : chain;
      Files.writeString(live, write[1]);
      Files.setLastModifiedTime(
          live, FileTime.fromMillis(System.currentTimeMillis() + minutes++ * 60_000));
      clock.forward(poll);
      int expected = ++looks;
      await().atMost(Duration.ofSeconds(10)).until(() -> reloads.get() == expected);
      String step = write[0] + " of " + write[1].length() + " chars";
      try {
        callOnANewConnection(trustingRoot());
      } catch (RuntimeException e) {
        throw new AssertionError("a new handshake failed after the watch read the " + step, e);
      }
    }
  }

  // ---- host names ----

  private String callAs(String host, X509Bundle leaf) throws Exception {
    serve(
        TlsConfig.fromPem(
            file("leaf.pem", leaf.getCertificatePathPEM()),
            file("leaf.key", leaf.getPrivateKeyPEM()),
            null));
    tether =
        Tether.builder()
            .tls(trustingRoot())
            .resolver(name -> List.of(InetAddress.getByAddress(name, new byte[] {127, 0, 0, 1})))
            .property("tether.retry.intervals", "0")
            .build();
    byte[] answer =
        tether
            .proxy("echo:ssl -h " + host + " -p " + server.endpoints().get(0).port())
            .invoke("echo", "hi".getBytes(StandardCharsets.UTF_8));
    return new String(answer, StandardCharsets.UTF_8);
  }

  private static CertificateBuilder plainLeaf(String subject) {
    return new CertificateBuilder()
        .subject(subject)
        .setKeyUsage(true, KeyUsage.digitalSignature)
        .addExtendedKeyUsageServerAuth();
  }

  @Test
  void certificateNamingAnIpAddressOnlyInItsCommonNameIsRefusedWhenThatAddressIsDialled()
      throws Exception {
    X509Bundle cnOnly = plainLeaf("CN=127.0.0.1").buildIssuedBy(root);

    assertThatThrownBy(() -> callAs("127.0.0.1", cnOnly))
        .isInstanceOf(ConnectFailedException.class);
  }

  @Test
  void certificateWithOnlyAnIpNameAndALocalhostCommonNameIsRefusedForLocalhost() throws Exception {
    X509Bundle ipOnly = plainLeaf("CN=localhost").addSanIpAddress("127.0.0.1").buildIssuedBy(root);

    assertThatThrownBy(() -> callAs("localhost", ipOnly))
        .isInstanceOf(ConnectFailedException.class);
  }

  @Test
  void hostNameDialledInCapitalsMatchesItsDnsName() throws Exception {
    X509Bundle named = plainLeaf("CN=x").addSanDnsName("db1.tether.test").buildIssuedBy(root);

    assertThat(callAs("DB1.Tether.TEST", named)).isEqualTo("hi");
  }

  // ---- revocation ----

  private static Path crl(
      String name, X509Bundle issuer, Instant thisUpdate, Instant nextUpdate, BigInteger... revoked)
      throws Exception {
    X509Certificate issuerCert = issuer.getCertificate();
    X509v2CRLBuilder builder = new JcaX509v2CRLBuilder(issuerCert, Date.from(thisUpdate));
    builder.setNextUpdate(Date.from(nextUpdate));
    for (BigInteger serial : revoked) {
      builder.addCRLEntry(serial, Date.from(thisUpdate), CRLReason.keyCompromise);
    }
    PrivateKey signer = issuer.getKeyPair().getPrivate();
    String algorithm = signer.getAlgorithm().equals("EC") ? "SHA256withECDSA" : "SHA256withRSA";
    byte[] der = builder.build(new JcaContentSignerBuilder(algorithm).build(signer)).getEncoded();
    return Files.writeString(shared.resolve(name), pem("X509 CRL", der));
  }

  private String callAsClientOfRoot(Path crl) throws Exception {
    X509Bundle serverCert = serverLeaf("CN=srv").buildIssuedBy(root);
    X509Bundle client =
        new CertificateBuilder()
            .subject("CN=client")
            .setKeyUsage(true, KeyUsage.digitalSignature)
            .addExtendedKeyUsageClientAuth()
            .buildIssuedBy(root);
    serve(
        TlsConfig.fromPem(
                file("srv.pem", serverCert.getCertificatePEM()),
                file("srv.key", serverCert.getPrivateKeyPEM()),
                rootFile)
            .withClientAuth(ClientAuth.REQUIRE)
            .withRevocationCheck(crl));
    return callOnANewConnection(
        TlsConfig.fromPem(
            file("client.pem", client.getCertificatePEM()),
            file("client.key", client.getPrivateKeyPEM()),
            rootFile));
  }

  @Test
  void currentListOfTheRightIssuerRevokingNobodyServes() throws Exception {
    Instant now = Instant.now();
    Path list = crl("current.crl", root, now.minusSeconds(60), now.plusSeconds(3600));

    assertThat(callAsClientOfRoot(list)).isEqualTo("hi");
  }

  @Test
  void listPastItsNextUpdateByADayRefusesEveryClient() throws Exception {
    Instant now = Instant.now();
    Path list = crl("expired.crl", root, now.minusSeconds(3 * 86400), now.minusSeconds(86400));

    // Refused when the server is built (the list can only refuse), or by every handshake.
    assertThatThrownBy(() -> callAsClientOfRoot(list))
        .isInstanceOfAny(ConnectFailedException.class, IllegalArgumentException.class);
  }

  /** The guide: a list past its next update is refused, five minutes past as a day past. */
  @Test
  void listFiveMinutesPastItsNextUpdateRefusesEveryClient() throws Exception {
    Instant now = Instant.now();
    Path list = crl("just-expired.crl", root, now.minusSeconds(86400), now.minusSeconds(300));

    // Refused when the server is built (the list can only refuse), or by every handshake.
    assertThatThrownBy(() -> callAsClientOfRoot(list))
        .isInstanceOfAny(ConnectFailedException.class, IllegalArgumentException.class);
  }

  /** The JDK's CRL check allows its issuer's clock 15 minutes of skew past the next update. */
  @Test
  void listTwentyMinutesPastItsNextUpdateRefusesEveryClient() throws Exception {
    Instant now = Instant.now();
    Path list = crl("expired-20.crl", root, now.minusSeconds(86400), now.minusSeconds(1200));

    // Refused when the server is built (the list can only refuse), or by every handshake.
    assertThatThrownBy(() -> callAsClientOfRoot(list))
        .isInstanceOfAny(ConnectFailedException.class, IllegalArgumentException.class);
  }

  @Test
  void listFromAnotherIssuerRefusesEveryClient() throws Exception {
    Instant now = Instant.now();
    Path list = crl("other.crl", otherRoot, now.minusSeconds(60), now.plusSeconds(3600));

    assertThatThrownBy(() -> callAsClientOfRoot(list)).isInstanceOf(ConnectFailedException.class);
  }

  @Test
  void listNotYetValidRefusesEveryClient() throws Exception {
    Instant now = Instant.now();
    Path list = crl("future.crl", root, now.plusSeconds(86400), now.plusSeconds(2 * 86400));

    assertThatThrownBy(() -> callAsClientOfRoot(list)).isInstanceOf(ConnectFailedException.class);
  }

  /**
   * A client checking a server whose chain runs through an intermediate: with the root's list (for
   * the intermediate) and the intermediate's (for the leaf) in the one file, it serves; a revoked
   * server leaf is refused.
   */
  @Test
  void clientCheckingAServerChainThroughAnIntermediateServesAndRefusesItsRevokedLeaf()
      throws Exception {
    Instant now = Instant.now();
    Path lists = shared.resolve("both.crl");
    Files.writeString(
        lists,
        Files.readString(crl("root-part.crl", root, now.minusSeconds(60), now.plusSeconds(3600)))
            + Files.readString(
                crl(
                    "intermediate-part.crl",
                    intermediate,
                    now.minusSeconds(60),
                    now.plusSeconds(3600),
                    leafB.getCertificate().getSerialNumber())));
    TlsConfig checking = trustingRoot().withRevocationCheck(lists);
    serve(
        TlsConfig.fromPem(
            file("a.pem", chainOf(leafA)), file("a.key", leafA.getPrivateKeyPEM()), null));
    assertThat(callOnANewConnection(checking)).isEqualTo("hi");
    server.close();
    tether.close();
    tether = null;

    serve(
        TlsConfig.fromPem(
            file("b.pem", chainOf(leafB)), file("b.key", leafB.getPrivateKeyPEM()), null));
    assertThatThrownBy(() -> callOnANewConnection(checking))
        .isInstanceOf(ConnectFailedException.class);
  }

  /**
   * A reload that finds the revocation list replaced by one already past its next update (a cron
   * job that copied yesterday's): it builds, and refuses every client from then on, which is what
   * the pair check keeps a key from doing.
   */
  @Test
  void reloadThatFindsAnExpiredRevocationListKeepsServingClients() throws Exception {
    Instant now = Instant.now();
    Path live = shared.resolve("live.crl");
    Files.copy(
        crl("fresh.crl", root, now.minusSeconds(60), now.plusSeconds(3600)),
        live,
        StandardCopyOption.REPLACE_EXISTING);
    assertThat(callAsClientOfRoot(live)).isEqualTo("hi");

    Files.copy(
        crl("stale.crl", root, now.minusSeconds(3 * 86400), now.minusSeconds(86400)),
        live,
        StandardCopyOption.REPLACE_EXISTING);
    try {
      server.reloadTls();
    } catch (IllegalArgumentException refusedIsFine) {
      // a list that can only refuse every peer kept out, like a mismatched key
    }

    assertThat(callOnANewConnection(null)).isEqualTo("hi");
  }
}
