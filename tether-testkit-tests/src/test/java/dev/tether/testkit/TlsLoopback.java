package dev.tether.testkit;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSession;

/**
 * Real TLS over real loopback sockets: an echo server on 127.0.0.1 and clients dialling it, each
 * side reporting its handshake as a future of the negotiated session.
 */
final class TlsLoopback implements AutoCloseable {
  private static final String LOOPBACK = "127.0.0.1";

  private final EventLoopGroup group =
      new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
  private final CompletableFuture<SSLSession> serverHandshake = new CompletableFuture<>();
  private Channel serverChannel; // non-null once started

  /** Starts the echo server on an ephemeral port of 127.0.0.1. */
  TlsLoopback start(SslContext serverContext) {
    serverChannel =
        new ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel.class)
            .childHandler(new ServerInitializer(serverContext, serverHandshake))
            .bind(LOOPBACK, 0)
            .syncUninterruptibly()
            .channel();
    return this;
  }

  int port() {
    return ((InetSocketAddress) serverChannel.localAddress()).getPort();
  }

  /** The server side's handshake on the first connection accepted. */
  CompletableFuture<SSLSession> serverHandshake() {
    return serverHandshake;
  }

  /** Connects to the server, presenting 127.0.0.1 as the dialled host. */
  Client connect(SslContext clientContext) {
    return connect(clientContext, LOOPBACK);
  }

  /**
   * Connects to the server at 127.0.0.1 while telling TLS it dialled {@code peerHost}, the name
   * hostname verification checks the server's certificate against.
   */
  Client connect(SslContext clientContext, String peerHost) {
    Client client = new Client();
    new Bootstrap()
        .group(group)
        .channel(NioSocketChannel.class)
        .handler(new ClientInitializer(clientContext, peerHost, port(), client))
        .connect(LOOPBACK, port())
        .syncUninterruptibly();
    return client;
  }

  @Override
  public void close() {
    group.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
  }

  /** One client connection: its handshake, and an echo exchange on top of it. */
  static final class Client {
    private final CompletableFuture<SSLSession> handshake = new CompletableFuture<>();
    private final CompletableFuture<String> echo = new CompletableFuture<>();
    private final StringBuilder received = new StringBuilder(); // touched only on the event loop
    private volatile Channel channel; // set when the channel is initialized
    private volatile int expectedLength;

    /** The client side's handshake. */
    CompletableFuture<SSLSession> handshake() {
      return handshake;
    }

    /** Sends {@code text} once the handshake is done; completes with what comes back. */
    CompletableFuture<String> echo(String text) {
      expectedLength = text.length();
      handshake.thenRun(
          () -> channel.writeAndFlush(Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII)));
      return echo;
    }

    void onRead(ByteBuf data) {
      received.append(data.toString(StandardCharsets.US_ASCII));
      if (received.length() >= expectedLength) {
        echo.complete(received.toString());
      }
    }

    void onClosed() {
      echo.completeExceptionally(new ClosedChannelException());
    }
  }

  private static final class ServerInitializer extends ChannelInitializer<SocketChannel> {
    private final SslContext context;
    private final CompletableFuture<SSLSession> handshake;

    ServerInitializer(SslContext context, CompletableFuture<SSLSession> handshake) {
      this.context = context;
      this.handshake = handshake;
    }

    @Override
    protected void initChannel(SocketChannel channel) {
      SslHandler tls = context.newHandler(channel.alloc());
      tls.handshakeFuture().addListener(done -> reportHandshake(done, tls, handshake));
      channel.pipeline().addLast(tls, new Echo());
    }
  }

  private static final class ClientInitializer extends ChannelInitializer<SocketChannel> {
    private final SslContext context;
    private final String peerHost;
    private final int peerPort;
    private final Client client;

    ClientInitializer(SslContext context, String peerHost, int peerPort, Client client) {
      this.context = context;
      this.peerHost = peerHost;
      this.peerPort = peerPort;
      this.client = client;
    }

    @Override
    protected void initChannel(SocketChannel channel) {
      client.channel = channel;
      SslHandler tls = context.newHandler(channel.alloc(), peerHost, peerPort);
      tls.handshakeFuture().addListener(done -> reportHandshake(done, tls, client.handshake));
      channel.pipeline().addLast(tls, new ClientReader(client));
    }
  }

  private static void reportHandshake(
      Future<?> done, SslHandler tls, CompletableFuture<SSLSession> handshake) {
    if (done.isSuccess()) {
      handshake.complete(tls.engine().getSession());
    } else {
      handshake.completeExceptionally(done.cause());
    }
  }

  /** Writes back whatever arrives; closes on any failure. */
  private static final class Echo extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ctx.writeAndFlush(msg);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close(); // the handshake future has the cause
    }
  }

  private static final class ClientReader extends ChannelInboundHandlerAdapter {
    private final Client client;

    ClientReader(Client client) {
      this.client = client;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      try {
        client.onRead((ByteBuf) msg);
      } finally {
        ReferenceCountUtil.release(msg);
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      client.onClosed();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close(); // the handshake future or the echo has the outcome
    }
  }
}
