package dev.tether.grpc.client;

import dev.tether.spi.ClientWireProtocol;
import io.netty.channel.Channel;

/**
 * gRPC over HTTP/2 (cleartext, prior knowledge) as a protocol a Tether client's connections speak:
 * each connection gets one {@link GrpcClientLink} behind the transport's handlers. Stateless, so
 * one instance serves every connection of every runtime.
 */
final class GrpcClientProtocol implements ClientWireProtocol {
  static final GrpcClientProtocol INSTANCE = new GrpcClientProtocol();

  private GrpcClientProtocol() {}

  @Override
  public String name() {
    return "grpc";
  }

  @Override
  public Link open(Channel channel, Connection connection) {
    GrpcClientLink link = new GrpcClientLink.Builder(connection).build();
    channel.pipeline().addLast(link);
    return link;
  }
}
