package dev.tether.transport;

import dev.tether.TlsConfig.Pem;
import io.netty.handler.ssl.SslContext;
import io.netty.util.AttributeKey;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;

/**
 * Refuses a certificate chain that stops short of its issuer: a leaf sent without its intermediate
 * (a chain file read while half written, or copied without the CA's bundle) is installed by JSSE
 * without a word, and every peer that trusts only the root then fails its handshake.
 *
 * <p>On reload a chain must not stop below a certificate the installed chain sent: its top issuer
 * may not be one of the installed chain's certificates (a root, which a chain may leave out,
 * excepted). At build nothing tells a leaf issued straight by a root its peers trust from one whose
 * intermediate is missing (a config's trusted certificates are its peers' CAs, not its own), so a
 * first chain is taken as given.
 */
final class ChainCompleteness {
  /** The chain a context was built with and the file it came from; absent for key factories. */
  private record Built(X509Certificate[] chain, String origin) {}

  private static final AttributeKey<Built> BUILT = AttributeKey.valueOf("tether-tls-chain");

  private ChainCompleteness() {}

  /** Records the chain a new context was built from, for {@link #requireContinues}. */
  static void remember(SslContext context, X509Certificate[] chain, Pem chainPem) {
    context.attributes().attr(BUILT).set(new Built(chain, chainPem.origin()));
  }

  /**
   * @throws IllegalArgumentException naming the new chain's file when it stops below a certificate
   *     the installed chain sent
   */
  static void requireContinues(SslContext installed, SslContext next) {
    if (installed == null) {
      return;
    }
    Built before = installed.attributes().attr(BUILT).get();
    Built after = next.attributes().attr(BUILT).get();
    if (before == null || after == null) {
      return;
    }
    X509Certificate top = after.chain()[after.chain().length - 1];
    for (X509Certificate sent : before.chain()) {
      boolean root = issuedBy(sent, sent);
      if (!root && sent.getSubjectX500Principal().equals(top.getIssuerX500Principal())) {
        throw new IllegalArgumentException(
            "TLS "
                + after.origin()
                + " ends with "
                + top.getSubjectX500Principal().getName()
                + " without its issuer "
                + sent.getSubjectX500Principal().getName()
                + ", which the chain in use sends: is the file half written, or its"
                + " intermediate missing? The chain in use stays");
      }
    }
  }

  private static boolean issuedBy(X509Certificate certificate, X509Certificate issuer) {
    if (!certificate.getIssuerX500Principal().equals(issuer.getSubjectX500Principal())) {
      return false;
    }
    try {
      certificate.verify(issuer.getPublicKey());
      return true;
    } catch (GeneralSecurityException notThisOne) {
      return false;
    }
  }
}
