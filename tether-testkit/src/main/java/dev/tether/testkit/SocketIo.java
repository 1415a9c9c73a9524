package dev.tether.testkit;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.util.function.Supplier;

/** The socket implementations the fault proxy can run on: native epoll where present, or NIO. */
enum SocketIo {
  NIO(NioIoHandler::newFactory, NioSocketChannel.class, NioServerSocketChannel.class),
  EPOLL(EpollIoHandler::newFactory, EpollSocketChannel.class, EpollServerSocketChannel.class);

  private final Supplier<IoHandlerFactory> handlers;
  private final Class<? extends SocketChannel> socketChannel;
  private final Class<? extends ServerChannel> serverSocketChannel;

  SocketIo(
      Supplier<IoHandlerFactory> handlers,
      Class<? extends SocketChannel> socketChannel,
      Class<? extends ServerChannel> serverSocketChannel) {
    this.handlers = handlers;
    this.socketChannel = socketChannel;
    this.serverSocketChannel = serverSocketChannel;
  }

  IoHandlerFactory ioHandlerFactory() {
    return handlers.get();
  }

  Class<? extends SocketChannel> socketChannel() {
    return socketChannel;
  }

  Class<? extends ServerChannel> serverSocketChannel() {
    return serverSocketChannel;
  }

  /** Epoll when the native transport loads, unless NIO is forced. */
  static SocketIo best(boolean forceNio) {
    return !forceNio && Epoll.isAvailable() ? EPOLL : NIO;
  }
}
