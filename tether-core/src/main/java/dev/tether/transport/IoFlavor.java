package dev.tether.transport;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;

/**
 * The socket implementation under the IP transports: native epoll when the platform has it, Java
 * NIO otherwise. Both behave the same; epoll saves a copy and a wakeup per read.
 */
public enum IoFlavor {
  EPOLL {
    @Override
    public IoHandlerFactory ioHandlerFactory() {
      return EpollIoHandler.newFactory();
    }

    @Override
    public Class<? extends SocketChannel> socketChannel() {
      return EpollSocketChannel.class;
    }

    @Override
    public Class<? extends ServerChannel> serverSocketChannel() {
      return EpollServerSocketChannel.class;
    }

    @Override
    public Class<? extends DatagramChannel> datagramChannel() {
      return EpollDatagramChannel.class;
    }
  },
  NIO {
    @Override
    public IoHandlerFactory ioHandlerFactory() {
      return NioIoHandler.newFactory();
    }

    @Override
    public Class<? extends SocketChannel> socketChannel() {
      return NioSocketChannel.class;
    }

    @Override
    public Class<? extends ServerChannel> serverSocketChannel() {
      return NioServerSocketChannel.class;
    }

    @Override
    public Class<? extends DatagramChannel> datagramChannel() {
      return NioDatagramChannel.class;
    }
  };

  public abstract IoHandlerFactory ioHandlerFactory();

  public abstract Class<? extends SocketChannel> socketChannel();

  public abstract Class<? extends ServerChannel> serverSocketChannel();

  public abstract Class<? extends DatagramChannel> datagramChannel();

  /** Epoll when it loads on this machine, unless {@code tether.transport.nio=true} asks for NIO. */
  public static IoFlavor best(boolean forceNio) {
    return !forceNio && Epoll.isAvailable() ? EPOLL : NIO;
  }
}
