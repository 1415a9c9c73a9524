package dev.tether;

import java.net.SocketAddress;
import java.time.Duration;

/**
 * One client connection as {@link Proxy#connection()} saw it: a read-only value, taken when asked
 * for, that never changes afterwards. {@link #id()} names the connection itself, so two snapshots
 * of the same connection have the same id; {@link Tether#connection(Connection)} takes a fresh one.
 *
 * @param id the connection's number, unique in this JVM; a new connection, even to the same
 *     endpoint, has another
 * @param endpoint where it goes, in grammar form (e.g. {@code "tcp -h 127.0.0.1 -p 7001"})
 * @param remoteAddress the peer's address: an InetSocketAddress for tcp, ssl and udp
 * @param transport the transport name, e.g. "tcp"
 * @param connectionId the connection id it was opened for; "" by default
 * @param timeout the transport timeout it was opened with, or null when infinite
 * @param isSecure true when its transport is encrypted (ssl)
 * @param state its state when the snapshot was taken
 * @param inFlight calls sent on it and not answered yet, when the snapshot was taken
 */
public record Connection(
    long id,
    String endpoint,
    SocketAddress remoteAddress,
    String transport,
    String connectionId,
    Duration timeout,
    boolean isSecure,
    ConnectionState state,
    int inFlight) {

  /**
   * True when {@code other} is a snapshot of the same connection, whatever either says of its
   * state.
   */
  public boolean isSameConnectionAs(Connection other) {
    return other != null && other.id == id;
  }
}
