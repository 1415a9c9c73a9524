package dev.tether.client;

import dev.tether.Endpoint;
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
 */
public record Candidate(
    Endpoint endpoint,
    Transport transport,
    SocketAddress address,
    Duration timeout,
    Duration connectTimeout) {

  /** The pool key for a connection to this candidate opened with {@code connectionId}. */
  public ConnectionKey key(String connectionId) {
    return new ConnectionKey(transport.name(), address, connectionId, timeout);
  }
}
