package dev.tether.server;

import java.net.SocketAddress;
import java.security.cert.X509Certificate;
import java.util.List;

/**
 * Who is on the other end of a connection, as far as the server verified it.
 *
 * @param address the client's address, or null when unknown (datagrams)
 * @param certificates the client's verified chain, its own certificate first; empty without one
 */
record Peer(SocketAddress address, List<X509Certificate> certificates) {
  /** A sender the server knows nothing about. */
  static final Peer UNKNOWN = new Peer(null, List.of());

  Peer {
    certificates = List.copyOf(certificates);
  }
}
