package dev.tether.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.local.LocalIoHandler;
import io.netty.channel.local.LocalServerChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * In-JVM channels: same protocol and pipeline as tcp without sockets. Addresses are named {@code
 * host:port}; port 0 picks a fresh number, as a TCP bind would. Every runtime in the JVM shares one
 * daemon loop, because a local channel's close reaches into its peer's loop, and a runtime that
 * stopped its own loop first would leave its peers failing.
 */
public final class LocalTransport implements Transport {
  private static final AtomicInteger NEXT_PORT = new AtomicInteger(1);

  private static final class SharedGroup {
    static final EventLoopGroup INSTANCE =
        new MultiThreadIoEventLoopGroup(
            1, new DefaultThreadFactory("tether-local", true), LocalIoHandler.newFactory());
  }

  private final EventLoopGroup group = SharedGroup.INSTANCE;

  @Override
  public String name() {
    return "local";
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
    int real = port == 0 ? NEXT_PORT.getAndIncrement() : port;
    return new LocalAddress("tether-local:" + host + ":" + real);
  }

  /** The port part of a local address made by {@link #address}. */
  public static int portOf(SocketAddress address) {
    String id = ((LocalAddress) address).id();
    return Integer.parseInt(id.substring(id.lastIndexOf(':') + 1));
  }

  @Override
  public ChannelFuture connect(
      SocketAddress remote, Duration connectTimeout, ChannelHandler handler) {
    return new Bootstrap()
        .group(group)
        .channel(LocalChannel.class)
        .option(ChannelOption.WRITE_BUFFER_WATER_MARK, WRITE_BUFFER_WATER_MARK)
        .handler(handler)
        .connect(remote);
  }

  @Override
  public ChannelFuture bind(SocketAddress local, ChannelHandler childHandler) {
    return new ServerBootstrap()
        .group(group)
        .channel(LocalServerChannel.class)
        .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, WRITE_BUFFER_WATER_MARK)
        .childHandler(childHandler)
        .bind(local);
  }
}
