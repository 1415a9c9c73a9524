package dev.tether.testkit;

import dev.tether.ClientAuth;
import dev.tether.TlsConfig;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.CertificateBuilder.KeyUsage;
import io.netty.pkitesting.X509Bundle;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * A throwaway public-key infrastructure for TLS tests, generated when created: a CA; a server
 * certificate it signed for {@code localhost} and {@code 127.0.0.1}; a client certificate it
 * signed; and a client certificate signed by a second, untrusted CA. All are written as PEM files
 * (certificate chains and unencrypted PKCS#8 keys) and offered as ready {@link TlsConfig}s.
 *
 * <pre>{@code
 * TestCertificates certificates = TestCertificates.create();
 * TlsConfig server = certificates.serverConfig(ClientAuth.REQUIRE);
 * TlsConfig client = certificates.clientWithCertificate();
 * }</pre>
 *
 * <p>Keys are EC P-256; certificates are valid from a day before creation to a day after. Never use
 * them outside tests: the private keys lie unprotected on disk. Immutable once created.
 */
public final class TestCertificates {
  /** The subject of the server certificate. */
  public static final String SERVER_SUBJECT = "CN=localhost, O=Tether test server";

  /** The subject of the trusted client certificate. */
  public static final String CLIENT_SUBJECT = "CN=tether-test-client, O=Tether test client";

  /** A certificate chain file and the private key file that goes with it. */
  public record Identity(Path certificateChain, Path privateKey) {}

  private final Path directory;
  private final Path caCertificate;
  private final Path untrustedCaCertificate;
  private final Identity server;
  private final Identity client;
  private final Identity untrustedClient;

  private TestCertificates(
      Path directory,
      Path caCertificate,
      Path untrustedCaCertificate,
      Identity server,
      Identity client,
      Identity untrustedClient) {
    this.directory = directory;
    this.caCertificate = caCertificate;
    this.untrustedCaCertificate = untrustedCaCertificate;
    this.server = server;
    this.client = client;
    this.untrustedClient = untrustedClient;
  }

  /** Generates certificates into a fresh temporary directory, deleted when the JVM exits. */
  public static TestCertificates create() {
    Path directory;
    try {
      directory = Files.createTempDirectory("tether-certificates");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a directory for test certificates", e);
    }
    directory.toFile().deleteOnExit(); // deleted last: deleteOnExit runs in reverse order
    return generate(directory, true);
  }

  /**
   * Generates certificates into {@code directory} (a JUnit {@code @TempDir}, say), which must
   * exist; files of the same names are replaced.
   */
  public static TestCertificates createIn(Path directory) {
    return generate(Objects.requireNonNull(directory, "directory"), false);
  }

  private static TestCertificates generate(Path directory, boolean deleteOnExit) {
    PemWriter writer = new PemWriter(directory, deleteOnExit);
    try {
      X509Bundle ca = authority("CN=Tether test CA");
      X509Bundle untrustedCa = authority("CN=Untrusted test CA");
      X509Bundle server =
          leaf(SERVER_SUBJECT)
              .addSanDnsName("localhost")
              .addSanIpAddress("127.0.0.1")
              .addExtendedKeyUsageServerAuth()
              .buildIssuedBy(ca);
      X509Bundle client = leaf(CLIENT_SUBJECT).addExtendedKeyUsageClientAuth().buildIssuedBy(ca);
      X509Bundle untrustedClient =
          leaf("CN=untrusted-test-client")
              .addExtendedKeyUsageClientAuth()
              .buildIssuedBy(untrustedCa);
      return new TestCertificates(
          directory,
          writer.write("ca.pem", ca.getCertificatePEM()),
          writer.write("untrusted-ca.pem", untrustedCa.getCertificatePEM()),
          writer.identity("server", server),
          writer.identity("client", client),
          writer.identity("untrusted-client", untrustedClient));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write test certificates to " + directory, e);
    } catch (Exception e) {
      throw new IllegalStateException("cannot generate test certificates", e);
    }
  }

  private static X509Bundle authority(String subject) throws Exception {
    return new CertificateBuilder()
        .subject(subject)
        .setIsCertificateAuthority(true)
        .setKeyUsage(true, KeyUsage.keyCertSign, KeyUsage.cRLSign)
        .buildSelfSigned();
  }

  private static CertificateBuilder leaf(String subject) {
    return new CertificateBuilder().subject(subject).setKeyUsage(true, KeyUsage.digitalSignature);
  }

  /**
   * A server presenting the {@code localhost} certificate, trusting the CA for client certificates.
   */
  public TlsConfig serverConfig(ClientAuth clientAuth) {
    return TlsConfig.fromPem(server.certificateChain(), server.privateKey(), caCertificate)
        .withClientAuth(clientAuth);
  }

  /** A client that trusts the CA and has no certificate of its own. */
  public TlsConfig trustingClient() {
    return TlsConfig.fromPem(null, null, caCertificate);
  }

  /** A client that trusts the CA and presents a certificate the CA signed. */
  public TlsConfig clientWithCertificate() {
    return TlsConfig.fromPem(client.certificateChain(), client.privateKey(), caCertificate);
  }

  /** A client that trusts the CA but presents a certificate signed by another CA. */
  public TlsConfig clientWithUntrustedCertificate() {
    return TlsConfig.fromPem(
        untrustedClient.certificateChain(), untrustedClient.privateKey(), caCertificate);
  }

  /** A client that trusts only the other CA, and so refuses the server. */
  public TlsConfig clientTrustingAnotherCa() {
    return TlsConfig.fromPem(null, null, untrustedCaCertificate);
  }

  /** The directory holding the PEM files. */
  public Path directory() {
    return directory;
  }

  /** The CA certificate ({@code ca.pem}) that signed the server and client certificates. */
  public Path caCertificate() {
    return caCertificate;
  }

  /** The other CA's certificate ({@code untrusted-ca.pem}). */
  public Path untrustedCaCertificate() {
    return untrustedCaCertificate;
  }

  /** The server's files ({@code server.pem}, {@code server.key}). */
  public Identity server() {
    return server;
  }

  /** The trusted client's files ({@code client.pem}, {@code client.key}). */
  public Identity client() {
    return client;
  }

  /** The untrusted client's files ({@code untrusted-client.pem}, {@code untrusted-client.key}). */
  public Identity untrustedClient() {
    return untrustedClient;
  }

  /** Writes PEM files into one directory, optionally marking them for deletion on exit. */
  private static final class PemWriter {
    private final Path directory;
    private final boolean deleteOnExit;

    PemWriter(Path directory, boolean deleteOnExit) {
      this.directory = directory;
      this.deleteOnExit = deleteOnExit;
    }

    Identity identity(String name, X509Bundle bundle) throws IOException {
      return new Identity(
          write(name + ".pem", bundle.getCertificatePathPEM()),
          write(name + ".key", bundle.getPrivateKeyPEM()));
    }

    Path write(String fileName, String pem) throws IOException {
      Path file = Files.writeString(directory.resolve(fileName), pem, StandardCharsets.US_ASCII);
      if (deleteOnExit) {
        file.toFile().deleteOnExit();
      }
      return file;
    }
  }
}
