package dev.tether.bench;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.function.Supplier;

/**
 * The Netty socket transport for the benchmark's own servers and clients: native epoll when
 * present, NIO otherwise.
 */
public enum NettyTransport {
  EPOLL(EpollIoHandler::newFactory, EpollSocketChannel.class, EpollServerSocketChannel.class),
  NIO(NioIoHandler::newFactory, NioSocketChannel.class, NioServerSocketChannel.class);

  private final Supplier<IoHandlerFactory> ioHandlerFactory;
  private final Class<? extends SocketChannel> socketChannel;
  private final Class<? extends ServerChannel> serverChannel;

  NettyTransport(
      Supplier<IoHandlerFactory> ioHandlerFactory,
      Class<? extends SocketChannel> socketChannel,
      Class<? extends ServerChannel> serverChannel) {
    this.ioHandlerFactory = ioHandlerFactory;
    this.socketChannel = socketChannel;
    this.serverChannel = serverChannel;
  }

  /** Epoll when its native library loads on this machine, else NIO. */
  public static NettyTransport best() {
    return Epoll.isAvailable() ? EPOLL : NIO;
  }

  /** A group of {@code threads} daemon event loops whose threads are named after {@code name}. */
  public EventLoopGroup newGroup(int threads, String name) {
    return new MultiThreadIoEventLoopGroup(
        threads, new DefaultThreadFactory(name, true), ioHandlerFactory.get());
  }

  public Class<? extends SocketChannel> socketChannel() {
    return socketChannel;
  }

  public Class<? extends ServerChannel> serverChannel() {
    return serverChannel;
  }
}
