package dev.tether;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * How one side of a connection does TLS: its own certificate and private key (a server needs them,
 * a client only when the server asks for one), the certificates it trusts to identify the other
 * side, the protocol versions it offers, and a side-specific check: {@linkplain #withClientAuth
 * client authentication} on a server, {@linkplain #withHostnameVerification hostname verification}
 * on a client.
 *
 * <p>Key material comes either from PEM (a certificate chain, an unencrypted PKCS#8 private key,
 * and trusted CA certificates) or from JSSE {@link KeyManagerFactory} and {@link
 * TrustManagerFactory} instances. Without trusted certificates the JDK's default trust store
 * applies. PEM files are read each time a TLS context is built from this config, so a server
 * started again with the same config picks up a renewed certificate.
 *
 * <p>Immutable and thread-safe; each {@code with*} method returns a new config. Defaults: no client
 * authentication, protocols {@code TLSv1.3} and {@code TLSv1.2}, hostname verification on.
 *
 * <pre>{@code
 * Path ca = Path.of("/etc/tether/ca.pem");
 * TlsConfig server =
 *     TlsConfig.fromPem(Path.of("/etc/tether/server.pem"), Path.of("/etc/tether/server.key"), ca)
 *         .withClientAuth(ClientAuth.REQUIRE);
 * TlsConfig client = TlsConfig.fromPem(null, null, ca);
 * }</pre>
 */
public final class TlsConfig {
  private static final List<String> DEFAULT_PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");

  private final KeyMaterial material;
  private final ClientAuth clientAuth;
  private final List<String> protocols;
  private final boolean hostnameVerification;

  /** Null unless {@link #withRevocationCheck} asked for one. */
  private final Pem revocationLists;

  private TlsConfig(
      KeyMaterial material,
      ClientAuth clientAuth,
      List<String> protocols,
      boolean hostnameVerification,
      Pem revocationLists) {
    this.material = material;
    this.clientAuth = clientAuth;
    this.protocols = protocols;
    this.hostnameVerification = hostnameVerification;
    this.revocationLists = revocationLists;
  }

  /** A config with the defaults around {@code material}. */
  private TlsConfig(KeyMaterial material) {
    this(material, ClientAuth.NONE, DEFAULT_PROTOCOLS, true, null);
  }

  /**
   * Where this side's certificate and its trust come from: PEM material or JSSE factories, never
   * both (the factories are null for PEM, the PEM null for factories).
   *
   * @param certificateChain non-null exactly when {@code privateKey} is
   */
  private record KeyMaterial(
      Pem certificateChain,
      Pem privateKey,
      Pem trustedCertificates,
      KeyManagerFactory keyManagerFactory,
      TrustManagerFactory trustManagerFactory) {

    List<Path> pemFiles() {
      return Stream.of(certificateChain, privateKey, trustedCertificates)
          .filter(Objects::nonNull)
          .flatMap(pem -> pem.file().stream())
          .toList();
    }

    String describeOwnCertificate() {
      if (certificateChain != null) {
        return certificateChain.origin() + " with " + privateKey.origin();
      }
      if (keyManagerFactory != null) {
        return "key manager factory " + keyManagerFactory.getAlgorithm();
      }
      return "none";
    }

    String describeTrust() {
      if (trustedCertificates != null) {
        return trustedCertificates.origin();
      }
      if (trustManagerFactory != null) {
        return "trust manager factory " + trustManagerFactory.getAlgorithm();
      }
      return "JDK default";
    }
  }

  /**
   * TLS from PEM files, read whenever a TLS context is built.
   *
   * @param certificateChain this side's certificate followed by any intermediates, or null for a
   *     client without a certificate of its own; given exactly when {@code privateKey} is
   * @param privateKey the unencrypted PKCS#8 private key of that certificate ({@code -----BEGIN
   *     PRIVATE KEY-----}), or null
   * @param trustedCertificates the CA certificates that may vouch for the other side, or null for
   *     the JDK's default trust store
   * @throws IllegalArgumentException when only one of certificate chain and private key is given
   */
  public static TlsConfig fromPem(
      Path certificateChain, Path privateKey, Path trustedCertificates) {
    return fromPem(certificateChain, privateKey, trustedCertificates, Pem::ofFile);
  }

  /**
   * TLS from PEM text in streams, read to the end now (parsed when a TLS context is built). The
   * streams stay open: the caller closes them.
   *
   * @param certificateChain this side's certificate chain, or null; given exactly when {@code
   *     privateKey} is
   * @param privateKey the unencrypted PKCS#8 private key of that certificate, or null
   * @param trustedCertificates CA certificates, or null for the JDK's default trust store
   * @throws IllegalArgumentException when only one of certificate chain and private key is given
   * @throws UncheckedIOException when a stream cannot be read
   */
  public static TlsConfig fromPem(
      InputStream certificateChain, InputStream privateKey, InputStream trustedCertificates) {
    return fromPem(certificateChain, privateKey, trustedCertificates, Pem::ofStream);
  }

  /** The two PEM factories differ only in where the text comes from. */
  private static <T> TlsConfig fromPem(
      T certificateChain, T privateKey, T trustedCertificates, BiFunction<String, T, Pem> read) {
    requireBothOrNeither(certificateChain, privateKey);
    return new TlsConfig(
        new KeyMaterial(
            pem("certificate chain", certificateChain, read),
            pem("private key", privateKey, read),
            pem("trusted certificates", trustedCertificates, read),
            null,
            null));
  }

  private static <T> Pem pem(String role, T source, BiFunction<String, T, Pem> read) {
    return source == null ? null : read.apply(role, source);
  }

  /**
   * TLS from initialized JSSE factories, for key stores, hardware tokens or custom trust logic.
   *
   * @param keyManagerFactory supplies this side's certificate and key, or null for a client without
   *     one
   * @param trustManagerFactory decides whom to trust, or null for the JDK's default trust store
   */
  public static TlsConfig fromFactories(
      KeyManagerFactory keyManagerFactory, TrustManagerFactory trustManagerFactory) {
    return new TlsConfig(new KeyMaterial(null, null, null, keyManagerFactory, trustManagerFactory));
  }

  /**
   * A client with no certificate of its own that trusts the JDK's default trust store and checks
   * the server's name, as a browser would. Same as {@code fromFactories(null, null)}.
   */
  public static TlsConfig defaultClient() {
    return fromFactories(null, null);
  }

  private static void requireBothOrNeither(Object certificateChain, Object privateKey) {
    if ((certificateChain == null) != (privateKey == null)) {
      throw new IllegalArgumentException(
          "a certificate chain and its private key go together: give both or neither");
    }
  }

  /**
   * Whether a server asks clients for certificates, checked against the trusted certificates.
   * Ignored on a client. Default {@link ClientAuth#NONE}.
   */
  public TlsConfig withClientAuth(ClientAuth clientAuth) {
    Objects.requireNonNull(clientAuth, "clientAuth");
    return new TlsConfig(material, clientAuth, protocols, hostnameVerification, revocationLists);
  }

  /**
   * The TLS protocol versions to offer, by their JSSE names; a handshake uses the highest one both
   * sides enable. Default {@code TLSv1.3, TLSv1.2}.
   *
   * @throws IllegalArgumentException when no protocol is given, or one is blank
   */
  public TlsConfig withProtocols(String... protocols) {
    List<String> list = List.of(protocols); // rejects null elements
    if (list.isEmpty() || list.stream().anyMatch(String::isBlank)) {
      throw new IllegalArgumentException("at least one TLS protocol, none blank: " + list);
    }
    return new TlsConfig(material, clientAuth, list, hostnameVerification, revocationLists);
  }

  /**
   * Whether a client checks that the server's certificate names the host it dialled (a DNS name or
   * IP address in the subject alternative names), by the same rules as HTTPS (endpoint
   * identification algorithm {@code "HTTPS"}) without the common-name fallback (RFC 6125): a
   * certificate with no DNS subject alternative name is refused for a host name even when its CN
   * spells it. Ignored on a server.
   *
   * <p>On by default: a certificate for another host, even one from a trusted CA, is refused, and
   * the connect fails with a {@link ConnectFailedException} naming the dialled host and the names
   * the certificate presents; that endpoint is not tried again for the call. A bare IP endpoint
   * needs the address among the certificate's IP subject alternative names. Turn it off only for a
   * private CA that certifies no names and issues certificates to your own servers alone: without
   * it the client accepts <em>any</em> certificate that CA issued.
   */
  public TlsConfig withHostnameVerification(boolean hostnameVerification) {
    return new TlsConfig(material, clientAuth, protocols, hostnameVerification, revocationLists);
  }

  /**
   * Checks the other side's certificate chain against the certificate revocation lists (CRLs, PEM
   * or DER, one or more) in {@code crlFile}, through the JDK's PKIX revocation checker: a
   * certificate a list revokes is refused in the handshake. The file is read whenever a context is
   * built, so a reload (or {@code watchTls}, which watches it too) picks up a new list.
   *
   * <p>Needs trusted certificates from PEM ({@link #fromPem}). Every certificate of the peer's
   * chain below the trusted CA must be covered by a current list from its issuer: one whose issuer
   * has no list in the file, or only one past its next update, is refused too, since its status
   * cannot be known. No list is fetched over the network (no distribution points, no OCSP), so a
   * handshake costs no round trip, only work in memory: the lists' signatures checked and the
   * peer's serial numbers looked up, growing with the lists' size. Keeping the file current (and
   * reloading) is the operator's job. Off by default.
   */
  public TlsConfig withRevocationCheck(Path crlFile) {
    Objects.requireNonNull(crlFile, "crlFile");
    return new TlsConfig(
        material,
        clientAuth,
        protocols,
        hostnameVerification,
        Pem.ofFile("certificate revocation lists", crlFile));
  }

  /** The revocation lists the peer's certificates are checked against, when asked for. */
  public Optional<Pem> revocationLists() {
    return Optional.ofNullable(revocationLists);
  }

  /** The PEM files this config reads each time a context is built: what a reload picks up. */
  public List<Path> pemFiles() {
    if (revocationLists == null) {
      return material.pemFiles();
    }
    List<Path> files = new ArrayList<>(material.pemFiles());
    files.add(revocationLists.file().orElseThrow());
    return List.copyOf(files);
  }

  /** This side's certificate chain in PEM, when configured from PEM with one. */
  public Optional<Pem> certificateChain() {
    return Optional.ofNullable(material.certificateChain());
  }

  /** The private key of {@link #certificateChain()}, present exactly when it is. */
  public Optional<Pem> privateKey() {
    return Optional.ofNullable(material.privateKey());
  }

  /** The trusted CA certificates in PEM, when configured from PEM with them. */
  public Optional<Pem> trustedCertificates() {
    return Optional.ofNullable(material.trustedCertificates());
  }

  /** The key manager factory, when configured from factories with one. */
  public Optional<KeyManagerFactory> keyManagerFactory() {
    return Optional.ofNullable(material.keyManagerFactory());
  }

  /** The trust manager factory, when configured from factories with one. */
  public Optional<TrustManagerFactory> trustManagerFactory() {
    return Optional.ofNullable(material.trustManagerFactory());
  }

  /** True when this side has a certificate to present, from PEM or a key manager factory. */
  public boolean hasOwnCertificate() {
    return material.certificateChain() != null || material.keyManagerFactory() != null;
  }

  /** Whether a server asks for client certificates. */
  public ClientAuth clientAuth() {
    return clientAuth;
  }

  /** The protocol versions offered, in the order given; unmodifiable. */
  public List<String> protocols() {
    return protocols;
  }

  /** Whether a client checks that the server's certificate names the dialled host. */
  public boolean hostnameVerification() {
    return hostnameVerification;
  }

  /** Describes where the material comes from; never prints key contents. */
  @Override
  public String toString() {
    return "TlsConfig{certificate="
        + material.describeOwnCertificate()
        + ", trust="
        + material.describeTrust()
        + ", clientAuth="
        + clientAuth
        + ", protocols="
        + protocols
        + ", hostnameVerification="
        + hostnameVerification
        + (revocationLists == null ? "" : ", revocation=" + revocationLists.origin())
        + "}";
  }

  /**
   * One piece of PEM material and where it comes from: a file, read on each {@link #read()}, or the
   * contents of a stream, captured when the config was made.
   */
  public static final class Pem {
    private final String role;
    private final Path file; // non-null for a file
    private final byte[] contents; // non-null for a stream

    private Pem(String role, Path file, byte[] contents) {
      this.role = role;
      this.file = file;
      this.contents = contents;
    }

    static Pem ofFile(String role, Path file) {
      return new Pem(role, file, null);
    }

    static Pem ofStream(String role, InputStream stream) {
      try {
        return new Pem(role, null, stream.readAllBytes());
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read TLS " + role + " stream", e);
      }
    }

    /** What this is and where it comes from, e.g. {@code private key file /etc/server.key}. */
    public String origin() {
      return file != null ? role + " file " + file : role + " from a stream";
    }

    /** The file, when this material comes from one. */
    public Optional<Path> file() {
      return Optional.ofNullable(file);
    }

    /**
     * The PEM text as bytes: the file's current contents, or a copy of the stream's.
     *
     * @throws IllegalArgumentException naming the file when it cannot be read
     */
    public byte[] read() {
      if (file == null) {
        return contents.clone();
      }
      try {
        return Files.readAllBytes(file);
      } catch (IOException e) {
        throw new IllegalArgumentException("cannot read TLS " + origin() + ": " + reason(e), e);
      }
    }

    private static String reason(IOException e) {
      if (e instanceof NoSuchFileException) {
        return "no such file";
      }
      if (e instanceof AccessDeniedException) {
        return "access denied";
      }
      return e.toString();
    }

    @Override
    public String toString() {
      return origin();
    }
  }
}
