package dev.tether.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;

/** Plain TCP over the event loops of its {@link IoFlavor}; TCP_NODELAY, as RPC traffic wants. */
public class TcpTransport implements Transport {
  private final IoFlavor flavor;
  private final EventLoopGroup group;

  public TcpTransport(IoFlavor flavor, EventLoopGroup group) {
    this.flavor = flavor;
    this.group = group;
  }

  @Override
  public String name() {
    return "tcp";
  }

  @Override
  public boolean isSecure() {
    return false;
  }

  @Override
  public boolean isDatagram() {
    return false;
  }

  @Override
  public SocketAddress address(String host, int port) {
    return "*".equals(host) ? new InetSocketAddress(port) : new InetSocketAddress(host, port);
  }

  @Override
  public ChannelFuture connect(SocketAddress remote, Duration connectTimeout, ChannelHandler handler) {
    Bootstrap bootstrap =
        new Bootstrap()
            .group(group)
            .channel(flavor.socketChannel())
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.SO_KEEPALIVE, true)
            .option(ChannelOption.WRITE_BUFFER_WATER_MARK, WRITE_BUFFER_WATER_MARK)
            .handler(wrap(handler, remote));
    if (connectTimeout != null) {
      bootstrap.option(ChannelOption.CONNECT_TIMEOUT_MILLIS, clampMillis(connectTimeout));
    }
    return bootstrap.connect(remote);
  }

  @Override
  public ChannelFuture bind(SocketAddress local, ChannelHandler childHandler) {
    return new ServerBootstrap()
        .group(group)
        .channel(flavor.serverSocketChannel())
        .option(ChannelOption.SO_REUSEADDR, true)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childOption(ChannelOption.SO_KEEPALIVE, true)
        .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, WRITE_BUFFER_WATER_MARK)
        .childHandler(wrap(childHandler, null))
        .bind(local);
  }

  @Override
  public SocketAddress boundAddress(Channel listener) {
    return listener.localAddress();
  }

  /**
   * Lets a subclass put its own handlers (TLS) in front of Tether's.
   *
   * @param remote the address dialled for a client channel; null for accepted server channels
   */
  protected ChannelHandler wrap(ChannelHandler handler, SocketAddress remote) {
    return handler;
  }

  static int clampMillis(Duration d) {
    long ms = d.toMillis();
    return ms > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) Math.max(1, ms);
  }
}
