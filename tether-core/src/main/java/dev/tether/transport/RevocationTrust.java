package dev.tether.transport;

import dev.tether.TlsConfig;
import dev.tether.TlsConfig.Pem;
import java.io.ByteArrayInputStream;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CRL;
import java.security.cert.CertPathBuilder;
import java.security.cert.CertStore;
import java.security.cert.CertificateFactory;
import java.security.cert.CollectionCertStoreParameters;
import java.security.cert.PKIXBuilderParameters;
import java.security.cert.PKIXRevocationChecker;
import java.security.cert.X509CRL;
import java.security.cert.X509CertSelector;
import java.time.Instant;
import java.util.Collection;
import java.util.Date;
import java.util.EnumSet;
import java.util.function.Function;
import javax.net.ssl.CertPathTrustManagerParameters;
import javax.net.ssl.TrustManagerFactory;

/**
 * The trust of a {@link TlsConfig} that asked for a revocation check: the JDK's PKIX trust manager
 * over the config's trusted certificates, with a revocation checker that reads only the config's
 * certificate revocation lists (no OCSP, no fetching from distribution points, no soft failure).
 */
final class RevocationTrust {
  private RevocationTrust() {}

  /**
   * @param keyStoreOf holds PEM certificates in a key store, as trust anchors
   * @throws IllegalArgumentException naming the file when the lists cannot be read, or when the
   *     config has no trusted certificates from PEM to anchor them
   */
  static TrustManagerFactory factory(TlsConfig config, Function<Pem, KeyStore> keyStoreOf) {
    Pem lists = config.revocationLists().orElseThrow();
    Pem trusted =
        config
            .trustedCertificates()
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "a TLS revocation check needs trusted certificates from PEM: " + config));
    try {
      PKIXBuilderParameters parameters =
          new PKIXBuilderParameters(keyStoreOf.apply(trusted), new X509CertSelector());
      parameters.addCertStore(
          CertStore.getInstance("Collection", new CollectionCertStoreParameters(read(lists))));
      PKIXRevocationChecker checker =
          (PKIXRevocationChecker) CertPathBuilder.getInstance("PKIX").getRevocationChecker();
      checker.setOptions(
          EnumSet.of(
              PKIXRevocationChecker.Option.PREFER_CRLS, PKIXRevocationChecker.Option.NO_FALLBACK));
      parameters.addCertPathChecker(checker);
      parameters.setRevocationEnabled(true);
      TrustManagerFactory factory = TrustManagerFactory.getInstance("PKIX");
      factory.init(new CertPathTrustManagerParameters(parameters));
      return factory;
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException(
          "cannot build a TLS revocation check from " + lists.origin() + ": " + e.getMessage(), e);
    }
  }

  private static Collection<? extends CRL> read(Pem lists) {
    Collection<? extends CRL> crls;
    try {
      crls =
          CertificateFactory.getInstance("X.509")
              .generateCRLs(new ByteArrayInputStream(lists.read()));
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException(
          "TLS " + lists.origin() + " holds no valid revocation list: " + e.getMessage(), e);
    }
    if (crls.isEmpty()) {
      throw new IllegalArgumentException("TLS " + lists.origin() + " holds no revocation list");
    }
    // A list past its next update fails every check against it: refused here, so a server does
    // not start into refusing every peer and a reload keeps the list in use. The system clock,
    // since nothing here holds the runtime's.
    Date now = Date.from(Instant.now());
    for (CRL crl : crls) {
      if (crl instanceof X509CRL x509
          && x509.getNextUpdate() != null
          && x509.getNextUpdate().before(now)) {
        throw new IllegalArgumentException(
            "TLS "
                + lists.origin()
                + " holds a revocation list of "
                + x509.getIssuerX500Principal().getName()
                + " past its next update ("
                + x509.getNextUpdate().toInstant()
                + "), which would refuse every peer: fetch a current one");
      }
    }
    return crls;
  }
}
