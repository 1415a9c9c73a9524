package dev.tether.transport;

import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * A client's trust manager that leaves the chain, its validity and the HTTPS hostname rules to the
 * JDK's, adds the one rule of RFC 6125 the JDK leaves out, and explains a refusal better: when the
 * chain is trusted and the one thing wrong is the name, it throws {@link PeerNameMismatchException}
 * naming the dialled host and what the certificate presented, instead of the JDK's bare "No subject
 * alternative names".
 *
 * <p>The added rule: a host name is matched against the certificate's DNS subject alternative names
 * only. The JDK falls back to the subject's common name (CN) when a certificate has no DNS name,
 * which RFC 6125 (6.4.4) deprecates and no CA issues for: such a certificate is refused.
 */
final class NameReportingTrustManager extends X509ExtendedTrustManager {
  /** Subject alternative name types of RFC 5280: dNSName and iPAddress. */
  private static final int DNS_NAME = 2;

  private static final int IP_ADDRESS = 7;

  private final X509ExtendedTrustManager jdk;

  NameReportingTrustManager(X509ExtendedTrustManager jdk) {
    this.jdk = jdk;
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    try {
      jdk.checkServerTrusted(chain, authType, engine);
    } catch (CertificateException refused) {
      throw explained(refused, chain, authType, engine.getPeerHost());
    }
    requireDnsNameFor(chain[0], engine.getPeerHost());
  }

  /**
   * The JDK matched a host name: without a DNS subject alternative name it can only have matched
   * the common name. IP addresses it already matches against IP names alone.
   */
  private static void requireDnsNameFor(X509Certificate certificate, String host)
      throws PeerNameMismatchException {
    if (host == null || isIpLiteral(host)) {
      return;
    }
    List<String> names = namesOf(certificate);
    if (names.stream().noneMatch(n -> n.startsWith("DNS:"))) {
      throw new PeerNameMismatchException(
          host, names, certificate.getSubjectX500Principal().getName(), null);
    }
  }

  private static boolean isIpLiteral(String host) {
    return host.contains(":") || host.chars().allMatch(c -> c == '.' || Character.isDigit(c));
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
      throws CertificateException {
    jdk.checkServerTrusted(chain, authType, socket);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType)
      throws CertificateException {
    jdk.checkServerTrusted(chain, authType);
  }

  /**
   * The 3-argument check failed; the 2-argument one checks no name: if it passes, the name was it.
   */
  private CertificateException explained(
      CertificateException refused, X509Certificate[] chain, String authType, String host) {
    try {
      jdk.checkServerTrusted(chain, authType);
    } catch (CertificateException untrusted) {
      return refused;
    }
    return new PeerNameMismatchException(
        host, namesOf(chain[0]), chain[0].getSubjectX500Principal().getName(), refused);
  }

  private static List<String> namesOf(X509Certificate certificate) {
    List<String> names = new ArrayList<>();
    try {
      Collection<List<?>> sans = certificate.getSubjectAlternativeNames();
      if (sans != null) {
        for (List<?> san : sans) {
          int type = (Integer) san.get(0);
          if (type == DNS_NAME) {
            names.add("DNS:" + san.get(1));
          } else if (type == IP_ADDRESS) {
            names.add("IP:" + san.get(1));
          }
        }
      }
    } catch (CertificateParsingException unreadable) {
      names.add("(unreadable subject alternative names)");
    }
    return names;
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    jdk.checkClientTrusted(chain, authType, engine);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
      throws CertificateException {
    jdk.checkClientTrusted(chain, authType, socket);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType)
      throws CertificateException {
    jdk.checkClientTrusted(chain, authType);
  }

  @Override
  public X509Certificate[] getAcceptedIssuers() {
    return jdk.getAcceptedIssuers();
  }
}
