package dev.tether.spi;

import io.netty.handler.ssl.SslHandler;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * The certificates a connection's peer presented and its TLS handshake verified, as every wire
 * protocol reports them to services: empty without TLS, or when the peer presented none.
 */
public final class VerifiedPeer {
  private VerifiedPeer() {}

  /** The peer's verified chain on the connection {@code tls} secures; empty when there is none. */
  public static List<X509Certificate> chainOf(SslHandler tls) {
    if (tls == null) {
      return List.of();
    }
    try {
      List<X509Certificate> chain = new ArrayList<>();
      for (Certificate c : tls.engine().getSession().getPeerCertificates()) {
        if (c instanceof X509Certificate x509) {
          chain.add(x509);
        }
      }
      return List.copyOf(chain);
    } catch (SSLPeerUnverifiedException anonymous) {
      return List.of();
    }
  }
}
