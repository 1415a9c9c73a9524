package dev.tether.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;

/**
 * Datagrams: one frame per datagram, no handshake, no responses. A client channel is a connected
 * UDP socket, so the kernel reports an unreachable port as a write error.
 */
public final class UdpTransport implements Transport {
  private final IoFlavor flavor;
  private final EventLoopGroup group;

  public UdpTransport(IoFlavor flavor, EventLoopGroup group) {
    this.flavor = flavor;
    this.group = group;
  }

  @Override
  public String name() {
    return "udp";
  }

  @Override
  public boolean isSecure() {
    return false;
  }

  @Override
  public boolean isDatagram() {
    return true;
  }

  @Override
  public SocketAddress address(String host, int port) {
    return "*".equals(host) ? new InetSocketAddress(port) : new InetSocketAddress(host, port);
  }

  @Override
  public ChannelFuture connect(
      SocketAddress remote, Duration connectTimeout, ChannelHandler handler) {
    return new Bootstrap()
        .group(group)
        .channel(flavor.datagramChannel())
        .handler(handler)
        .connect(remote);
  }

  @Override
  public ChannelFuture bind(SocketAddress local, ChannelHandler childHandler) {
    return new Bootstrap()
        .group(group)
        .channel(flavor.datagramChannel())
        .handler(childHandler)
        .bind(local);
  }
}
