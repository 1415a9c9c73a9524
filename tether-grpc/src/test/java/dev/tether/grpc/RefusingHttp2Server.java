package dev.tether.grpc;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2ConnectionHandlerBuilder;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2EventAdapter;
import io.netty.handler.codec.http2.Http2Headers;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An HTTP/2 server on the project's own Netty that takes no call: it answers every stream with
 * RST_STREAM(REFUSED_STREAM), or (in {@link Mode#GOAWAY}) with a GOAWAY whose last stream id is
 * below it. Both prove the call never ran, which is what the client's at-most-once rule reads.
 */
final class RefusingHttp2Server implements AutoCloseable {
  enum Mode {
    /** RST_STREAM(REFUSED_STREAM) on each stream. */
    REFUSED_STREAM,
    /** GOAWAY(NO_ERROR, last stream id 0) at the first stream. */
    GOAWAY
  }

  private final EventLoopGroup group =
      new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final Channel listener;

  /** Streams the server saw opened. */
  final AtomicInteger streams = new AtomicInteger();

  RefusingHttp2Server(Mode mode) throws InterruptedException {
    listener =
        new ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel.class)
            .childHandler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    ch.pipeline().addLast(handler(mode));
                  }
                })
            .bind("127.0.0.1", 0)
            .sync()
            .channel();
  }

  private Http2ConnectionHandler handler(Mode mode) {
    Http2ConnectionHandler[] self = new Http2ConnectionHandler[1];
    self[0] =
        new Http2ConnectionHandlerBuilder()
            .server(true)
            .gracefulShutdownTimeoutMillis(0)
            .frameListener(
                new Http2EventAdapter() {
                  @Override
                  public void onHeadersRead(
                      ChannelHandlerContext ctx,
                      int streamId,
                      Http2Headers headers,
                      int padding,
                      boolean endOfStream) {
                    streams.incrementAndGet();
                    if (mode == Mode.REFUSED_STREAM) {
                      self[0]
                          .encoder()
                          .writeRstStream(
                              ctx, streamId, Http2Error.REFUSED_STREAM.code(), ctx.newPromise());
                    } else {
                      self[0].goAway(
                          ctx,
                          0,
                          Http2Error.NO_ERROR.code(),
                          Unpooled.EMPTY_BUFFER,
                          ctx.newPromise());
                    }
                    ctx.flush();
                  }

                  @Override
                  public void onHeadersRead(
                      ChannelHandlerContext ctx,
                      int streamId,
                      Http2Headers headers,
                      int streamDependency,
                      short weight,
                      boolean exclusive,
                      int padding,
                      boolean endOfStream) {
                    onHeadersRead(ctx, streamId, headers, padding, endOfStream);
                  }
                })
            .build();
    return self[0];
  }

  int port() {
    return ((InetSocketAddress) listener.localAddress()).getPort();
  }

  @Override
  public void close() {
    listener.close().syncUninterruptibly();
    group.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
  }
}
