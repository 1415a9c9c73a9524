package dev.tether.server;

import java.net.SocketAddress;
import java.security.cert.X509Certificate;
import java.util.Base64;
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
   * Who may resume this client's streams: its verified certificate itself when it has one (its
   * subject and its public key, so another CA's certificate for the same subject is someone else),
   * else the name its HELLO gave.
   */
  String streamIdentity() {
    if (certificates.isEmpty()) {
      return "client " + clientId;
    }
    X509Certificate leaf = certificates.get(0);
    return "subject "
        + leaf.getSubjectX500Principal().getName()
        + " key "
        + Base64.getEncoder().encodeToString(leaf.getPublicKey().getEncoded());
  }

  Peer {
    certificates = List.copyOf(certificates);
  }
}
