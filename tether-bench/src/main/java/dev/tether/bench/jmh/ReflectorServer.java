package dev.tether.bench.jmh;

import dev.tether.bench.NettyTransport;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * A stand-in Tether server that answers every twoway REQUEST with an OK RESPONSE carrying the
 * request's own body, and allocates no Java objects per call (see {@link ReflectorHandler}). JMH's
 * gc profiler counts the allocations of every thread in the JVM, so with this server on the other
 * end of the connection, {@code gc.alloc.rate.norm} is the client's cost alone.
 *
 * <p>One event loop serves the listening socket and every connection; epoll when available.
 */
public final class ReflectorServer implements AutoCloseable {

  private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

  private final EventLoopGroup group;
  private final Channel listener;

  private ReflectorServer(EventLoopGroup group, Channel listener) {
    this.group = group;
    this.listener = listener;
  }

  /** Binds 127.0.0.1 on an ephemeral port and starts answering. */
  public static ReflectorServer start() {
    NettyTransport transport = NettyTransport.best();
    EventLoopGroup group = transport.newGroup(1, "reflector");
    try {
      Channel listener =
          new ServerBootstrap()
              .group(group)
              .channel(transport.serverChannel())
              .childOption(ChannelOption.TCP_NODELAY, true)
              .childHandler(new Initializer())
              .bind(LOOPBACK, 0)
              .syncUninterruptibly()
              .channel();
      return new ReflectorServer(group, listener);
    } catch (RuntimeException e) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      throw e;
    }
  }

  public int port() {
    return ((InetSocketAddress) listener.localAddress()).getPort();
  }

  /** A proxy string for {@code identity} on this server, ready for {@code tether.proxy(...)}. */
  public String proxyString(String identity) {
    return identity + ":tcp -h " + LOOPBACK.getHostAddress() + " -p " + port();
  }

  /** Stops listening and drops every connection at once. */
  @Override
  public void close() {
    listener.close().syncUninterruptibly();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
  }

  /** Gives each accepted connection its own {@link ReflectorHandler}. */
  private static final class Initializer extends ChannelInitializer<Channel> {
    @Override
    protected void initChannel(Channel ch) {
      ch.pipeline().addLast(new ReflectorHandler());
    }
  }
}
