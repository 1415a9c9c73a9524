package dev.tether.testkit;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/** What a TLS server shows a fresh handshake, seen by a plain JSSE client on 127.0.0.1. */
final class PresentedCertificate {
  private PresentedCertificate() {}

  /** The first certificate of a PEM file. */
  static X509Certificate firstOf(Path pem) throws Exception {
    try (InputStream in = Files.newInputStream(pem)) {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
  }

  /**
   * The certificate a new connection to {@code port} is shown, trusting the CAs in {@code trust}.
   */
  static X509Certificate toANewConnection(Path trust, int port) throws Exception {
    KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
    store.load(null, null);
    try (InputStream in = Files.newInputStream(trust)) {
      int i = 0;
      for (var c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        store.setCertificateEntry("ca" + i++, c);
      }
    }
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(store);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, tmf.getTrustManagers(), null);
    try (SSLSocket s = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port)) {
      s.startHandshake();
      return (X509Certificate) s.getSession().getPeerCertificates()[0];
    }
  }
}
