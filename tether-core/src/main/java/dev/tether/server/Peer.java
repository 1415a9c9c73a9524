package dev.tether.server;

import java.net.SocketAddress;
import java.security.cert.X509Certificate;
import java.util.List;

/**
 * Who is on the other end of a connection, as far as the server verified it.
 *
 * @param address the client's address, or null when unknown (datagrams)
 * @param certificates the client's verified chain, its own certificate first; empty without one
 * @param clientId the name its HELLO gave; "" when unknown
 */
record Peer(SocketAddress address, List<X509Certificate> certificates, String clientId) {
  /** A sender the server knows nothing about. */
  static final Peer UNKNOWN = new Peer(null, List.of(), "");

  Peer(SocketAddress address, List<X509Certificate> certificates) {
    this(address, certificates, "");
  }

  /**
   * Who may resume this client's streams: its verified certificate's subject when it has one, else
   * the name its HELLO gave.
   */
  String streamIdentity() {
    return certificates.isEmpty()
        ? "client " + clientId
        : "subject " + certificates.get(0).getSubjectX500Principal().getName();
  }

  Peer {
    certificates = List.copyOf(certificates);
  }
}
