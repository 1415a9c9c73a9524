package dev.tether.transport;

import dev.tether.spi.Scheduler;
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

/**
 * Plain TCP over the event loops of its {@link IoFlavor}; TCP_NODELAY, as RPC traffic wants. A
 * connect gives up after its timeout as {@code timers} count time (the runtime's scheduler), not on
 * a timer of Netty's own.
 */
public class TcpTransport implements Transport {
  /**
   * The bound on a connect given no timeout: what Netty would apply by default, kept so such a
   * connect ends as it did, now on the runtime's clock.
   */
  static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(30);

  private final IoFlavor flavor;
  private final EventLoopGroup group;
  private final Scheduler timers;

  public TcpTransport(IoFlavor flavor, EventLoopGroup group, Scheduler timers) {
    this.flavor = flavor;
    this.group = group;
    this.timers = timers;
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
  public ChannelFuture connect(
      SocketAddress remote, Duration connectTimeout, ChannelHandler handler) {
    Bootstrap bootstrap =
        new Bootstrap()
            .group(group)
            .channel(flavor.socketChannel())
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.SO_KEEPALIVE, true)
            .option(ChannelOption.WRITE_BUFFER_WATER_MARK, WRITE_BUFFER_WATER_MARK)
            // 0 turns Netty's own connect timer off: the deadline below is the only one.
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 0)
            .handler(wrap(handler, remote));
    Duration limit = connectTimeout != null ? connectTimeout : DEFAULT_CONNECT_TIMEOUT;
    return ConnectDeadline.bound(bootstrap.connect(remote), remote, limit, timers);
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
}
