package dev.tether.client;

import dev.tether.Endpoint;
import dev.tether.spi.ClientWireProtocol;
import dev.tether.transport.Transport;
import java.net.SocketAddress;
import java.time.Duration;

/**
 * One endpoint after selection: resolved to one address, with the transport that reaches it and the
 * timeouts in force for it.
 *
 * @param endpoint the endpoint as the proxy lists it, host replaced by the resolved address
 * @param timeout the transport timeout in force (override or {@code -t}); null when infinite
 * @param connectTimeout bound on connect plus handshake; null when infinite
 * @param protocol the wire protocol its connections speak; null for Tether's own
 */
public record Candidate(
    Endpoint endpoint,
    Transport transport,
    SocketAddress address,
    Duration timeout,
    Duration connectTimeout,
    ClientWireProtocol protocol) {

  /** A candidate of Tether's own protocol. */
  public Candidate(
      Endpoint endpoint,
      Transport transport,
      SocketAddress address,
      Duration timeout,
      Duration connectTimeout) {
    this(endpoint, transport, address, timeout, connectTimeout, null);
  }

  /** The same endpoint reached with {@code p} (null: Tether's own protocol). */
  Candidate speaking(ClientWireProtocol p) {
    return new Candidate(endpoint, transport, address, timeout, connectTimeout, p);
  }

  /** The pool key for a connection to this candidate opened with {@code connectionId}. */
  public ConnectionKey key(String connectionId) {
    String p = protocol == null ? "" : protocol.name();
    return new ConnectionKey(transport.name(), address, connectionId, timeout, p);
  }
}
