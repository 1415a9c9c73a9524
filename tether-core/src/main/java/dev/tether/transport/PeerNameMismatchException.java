package dev.tether.transport;

import java.security.cert.CertificateException;
import java.util.List;

/**
 * The server's certificate comes from a trusted CA but names other hosts than the one dialled.
 * Retrying the same endpoint cannot help: it will present the same certificate.
 */
public final class PeerNameMismatchException extends CertificateException {
  private final String expectedHost;
  private final List<String> presentedNames;

  PeerNameMismatchException(
      String expectedHost, List<String> presentedNames, String subject, Throwable cause) {
    super(
        "server certificate does not name the dialled host "
            + expectedHost
            + ": it presents "
            + (presentedNames.isEmpty()
                ? "no subject alternative names"
                : String.join(", ", presentedNames))
            + " (subject "
            + subject
            + "); dial a name it lists, or turn hostname verification off "
            + "(TlsConfig.withHostnameVerification(false)) for a private CA that certifies no names",
        cause);
    this.expectedHost = expectedHost;
    this.presentedNames = List.copyOf(presentedNames);
  }

  /** The host the client dialled, or null when it dialled none it could check. */
  public String expectedHost() {
    return expectedHost;
  }

  /** The certificate's subject alternative names, as {@code DNS:name} and {@code IP:address}. */
  public List<String> presentedNames() {
    return presentedNames;
  }

  /** True when {@code failure} or one of its causes is a name mismatch. */
  public static boolean isCauseOf(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof PeerNameMismatchException) {
        return true;
      }
    }
    return false;
  }
}
