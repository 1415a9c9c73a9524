package dev.tether.client;

import java.net.SocketAddress;
import java.time.Duration;

/**
 * What makes two connections interchangeable (the connection-reuse rule Ice's manual gives): the
 * same transport and remote address, the same connection id and the same timeout. Compression is
 * deliberately absent. The wire protocol is part of it: "" for Tether's own, else the name of the
 * proxy's {@code ClientWireProtocol}, so connections of two protocols to one address never mix.
 */
public record ConnectionKey(
    String transport,
    SocketAddress address,
    String connectionId,
    Duration timeout,
    String protocol) {

  /** A key of Tether's own protocol. */
  public ConnectionKey(
      String transport, SocketAddress address, String connectionId, Duration timeout) {
    this(transport, address, connectionId, timeout, "");
  }
}
