package dev.tether.testkit;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A Netty echo server on 127.0.0.1 for tests: it sends back every byte it reads and records, per
 * connection, what it received and how the connection ended.
 */
final class EchoServer implements AutoCloseable {
  /** How a connection ended, seen from the server. */
  enum Ending {
    /** The peer closed with FIN. */
    EOF,
    /** The peer reset the connection (or another I/O error broke it). */
    RESET
  }

  /** One accepted connection. Thread-safe. */
  static final class Peer {
    private final Channel channel;
    private final ByteArrayOutputStream received = new ByteArrayOutputStream();
    private final CompletableFuture<Ending> ending = new CompletableFuture<>();

    private Peer(Channel channel) {
      this.channel = channel;
    }

    /** Every byte this connection has received so far. */
    synchronized byte[] received() {
      return received.toByteArray();
    }

    /** Completes when the connection has ended. */
    CompletableFuture<Ending> ending() {
      return ending;
    }

    /** Sends {@code bytes} to the client, then closes the connection with FIN. */
    void sendAndClose(byte[] bytes) {
      channel.writeAndFlush(Unpooled.wrappedBuffer(bytes)).addListener(written -> channel.close());
    }

    /** Closes the connection with RST. */
    void reset() {
      channel
          .eventLoop()
          .execute(
              () -> {
                channel.config().setOption(ChannelOption.SO_LINGER, 0);
                channel.close();
              });
    }

    private synchronized void record(ByteBuf data) {
      received.writeBytes(ByteBufUtil.getBytes(data));
    }
  }

  private final EventLoopGroup group;
  private final Channel listener;
  private final List<Peer> peers = new CopyOnWriteArrayList<>();

  private EchoServer() {
    group =
        new MultiThreadIoEventLoopGroup(
            1, new DefaultThreadFactory("echo-server", true), NioIoHandler.newFactory());
    listener =
        new ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel.class)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(new Accept(this))
            .bind("127.0.0.1", 0)
            .syncUninterruptibly()
            .channel();
  }

  static EchoServer start() {
    return new EchoServer();
  }

  InetSocketAddress address() {
    return (InetSocketAddress) listener.localAddress();
  }

  /** The connections accepted so far, in order. */
  List<Peer> peers() {
    return List.copyOf(peers);
  }

  @Override
  public void close() {
    listener.close();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  /** Gives each accepted connection its {@link Peer} and {@link Echo}. */
  private static final class Accept extends ChannelInitializer<Channel> {
    private final EchoServer server;

    Accept(EchoServer server) {
      this.server = server;
    }

    @Override
    protected void initChannel(Channel channel) {
      Peer peer = new Peer(channel);
      server.peers.add(peer);
      channel.pipeline().addLast(new Echo(peer));
    }
  }

  /** One per connection: echoes, records, reports the ending. */
  private static final class Echo extends ChannelInboundHandlerAdapter {
    private final Peer peer;
    private boolean broken;

    Echo(Peer peer) {
      this.peer = peer;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf data = (ByteBuf) msg;
      peer.record(data);
      ctx.write(data).addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
      ctx.flush();
    }

    /** Read and write failures both come here: a failed echo is reported like a failed read. */
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      broken = cause instanceof IOException;
      ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      peer.ending.complete(broken ? Ending.RESET : Ending.EOF);
    }
  }
}
