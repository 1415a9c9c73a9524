package dev.tether.bench;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The practical limit: length-prefixed frames over one Netty connection with nothing else, no
 * service lookup, no codec and no executor hop. One event loop serves, another calls.
 */
final class RawNettySystem {

  private static final String LOOPBACK = "127.0.0.1";

  private RawNettySystem() {}

  static List<SystemSpec> specs() {
    return List.of(new SystemSpec(SystemSpec.RAW_NETTY, "", Server::new, Client::new));
  }

  private static void shutDown(EventLoopGroup group) {
    if (group != null) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
    }
  }

  /** One event loop echoing frames. */
  private static final class Server implements BenchServer {
    private final NettyTransport transport = NettyTransport.best();

    /** Non-null once {@link #start()} has run. */
    private EventLoopGroup group;

    /** Non-null once {@link #start()} has run. */
    private Channel channel;

    @Override
    public int start() throws InterruptedException {
      group = transport.newGroup(1, "raw-netty-server");
      channel =
          new ServerBootstrap()
              .group(group)
              .channel(transport.serverChannel())
              .childOption(ChannelOption.TCP_NODELAY, true)
              .childHandler(new EchoServerInitializer())
              .bind(LOOPBACK, 0)
              .sync()
              .channel();
      return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    @Override
    public void close() {
      if (channel != null) {
        channel.close().awaitUninterruptibly();
      }
      shutDown(group);
    }
  }

  /** One event loop and one connection, with the pending calls in an int-keyed table. */
  private static final class Client implements BenchClient {
    private final NettyTransport transport = NettyTransport.best();
    private final RawClientHandler handler = new RawClientHandler();

    /** Non-null once {@link #connect} has run. */
    private EventLoopGroup group;

    /** Non-null once {@link #connect} has run. */
    private Channel channel;

    @Override
    public void connect(int port) throws InterruptedException {
      group = transport.newGroup(1, "raw-netty-client");
      channel =
          new Bootstrap()
              .group(group)
              .channel(transport.socketChannel())
              .option(ChannelOption.TCP_NODELAY, true)
              .handler(handler)
              .connect(LOOPBACK, port)
              .sync()
              .channel();
    }

    @Override
    public void call(byte[] payload, ResponseHandler responseHandler) {
      handler.call(payload, responseHandler);
    }

    @Override
    public void close() {
      if (channel != null) {
        channel.close().awaitUninterruptibly();
      }
      shutDown(group);
    }

    @Override
    public String toString() {
      return "raw-netty over " + transport;
    }
  }

  private static final class EchoServerInitializer extends ChannelInitializer<Channel> {
    @Override
    protected void initChannel(Channel channel) {
      channel.pipeline().addLast(new RawEchoServerHandler());
    }
  }
}
