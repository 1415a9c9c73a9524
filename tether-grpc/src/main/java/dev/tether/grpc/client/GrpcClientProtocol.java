package dev.tether.grpc.client;

import dev.tether.spi.ClientWireProtocol;
import io.netty.channel.Channel;

/**
 * gRPC over HTTP/2 as a protocol a Tether client's connections speak: cleartext with prior
 * knowledge on tcp, ALPN {@code h2} on ssl ({@link H2OverTls}); each connection gets one {@link
 * GrpcClientLink} behind the transport's handlers. Thread-safe: one instance serves every
 * connection of the channels made with it.
 */
final class GrpcClientProtocol implements ClientWireProtocol {
  static final GrpcClientProtocol INSTANCE = new GrpcClientProtocol(KeepalivePolicy.OFF);

  private final KeepalivePolicy keepalive;
  private final String name;

  GrpcClientProtocol(KeepalivePolicy keepalive) {
    this.keepalive = keepalive;
    // Connections with other liveness rules are not the same connections.
    this.name = keepalive.isOn() ? "grpc+" + keepalive : "grpc";
  }

  @Override
  public String name() {
    return name;
  }

  /** Every variant is gRPC to its calls' observers. */
  @Override
  public String family() {
    return "grpc";
  }

  @Override
  public Link open(Channel channel, Connection connection) {
    H2OverTls.install(channel, connection);
    GrpcClientLink link = new GrpcClientLink.Builder(connection, keepalive).build();
    channel.pipeline().addLast(link);
    return link;
  }
}
