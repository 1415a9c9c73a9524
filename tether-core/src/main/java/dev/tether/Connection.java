package dev.tether;

import java.net.SocketAddress;
import java.time.Duration;

/**
 * A view of one client connection, as returned by {@link Proxy#connection()}: where it goes, which
 * connection id and timeout it was opened with, and its state. Read-only.
 */
public interface Connection {
  /** The peer's address: an InetSocketAddress for tcp, ssl and udp. */
  SocketAddress remoteAddress();

  /** The connection id it was opened for; "" by default. */
  String connectionId();

  /** The transport timeout it was opened with, or null when infinite. */
  Duration timeout();

  ConnectionState state();

  boolean isSecure();

  /** The transport name, e.g. "tcp". */
  String transport();
}
