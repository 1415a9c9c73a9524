package dev.tether;

import java.net.SocketAddress;
import java.security.Principal;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What service code and interceptors may know about the request being served: its names, its flags,
 * the metadata the client attached ({@code proxy.withMetadata}), and who sent it. Identity comes
 * from the TLS handshake only: a certificate the server verified against its trusted CAs.
 */
public interface CallContext {
  String service();

  String operation();

  /** True when the caller declared the request idempotent. */
  boolean isIdempotent();

  /** True when the caller waits for no response. */
  boolean isOneway();

  /** String headers sent with the request. */
  Map<String, String> metadata();

  /** The client's address; null for a datagram, whose sender is not verified. */
  SocketAddress remoteAddress();

  /**
   * The certificate chain the client presented and the server verified, the client's own
   * certificate first; empty over a transport without TLS, or when the client sent none.
   */
  List<X509Certificate> peerCertificates();

  /**
   * How long the caller still waits for the answer, or null when it set no deadline. Calls the
   * service makes on this thread before it returns inherit this deadline unless they set a shorter
   * one.
   */
  default Duration timeRemaining() {
    return null;
  }

  /**
   * The wire protocol the request came in on: {@code "tether"} for Tether's own, or the name of
   * another protocol the server speaks on the same port (such as {@code "grpc"}).
   */
  default String protocol() {
    return "tether";
  }

  /** The subject of the client's verified certificate, or null when there is none. */
  default Principal peerPrincipal() {
    List<X509Certificate> chain = peerCertificates();
    return chain.isEmpty() ? null : chain.get(0).getSubjectX500Principal();
  }
}
