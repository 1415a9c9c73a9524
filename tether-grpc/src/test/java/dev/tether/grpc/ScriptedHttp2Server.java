package dev.tether.grpc;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2ConnectionHandlerBuilder;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2EventAdapter;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An HTTP/2 server on the project's own Netty that answers each request as a test's {@link Script}
 * says, legal or not: the hostile and sick servers the channel must survive. With no script it
 * takes connections and never says a word (not even SETTINGS). Counts dials, streams and resets.
 */
final class ScriptedHttp2Server implements AutoCloseable {
  /** What the server does when a request's HEADERS arrive. */
  interface Script {
    void onRequest(Peer peer, int streamId);

    /** The request's DATA; by default read and dropped. */
    default void onData(Peer peer, int streamId, boolean endOfStream) {}
  }

  /** One server connection, as a script writes to it (on its event loop). */
  static final class Peer {
    final ChannelHandlerContext ctx;
    final Http2ConnectionHandler handler;

    Peer(ChannelHandlerContext ctx, Http2ConnectionHandler handler) {
      this.ctx = ctx;
      this.handler = handler;
    }

    void headers(int id, Http2Headers headers, boolean end) {
      handler.encoder().writeHeaders(ctx, id, headers, 0, end, ctx.newPromise());
      ctx.flush();
    }

    /** A gRPC message of {@code length} bytes announced, with {@code body} as its bytes. */
    void message(int id, long length, byte[] body, boolean end) {
      ByteBuf data = Unpooled.buffer(5 + body.length);
      data.writeByte(0).writeInt((int) length).writeBytes(body);
      handler.encoder().writeData(ctx, id, data, 0, end, ctx.newPromise());
      ctx.flush();
    }

    /** A message flagged compressed, {@code gzip} its bytes. */
    void compressedMessage(int id, byte[] gzip) {
      ByteBuf data = Unpooled.buffer(5 + gzip.length);
      data.writeByte(1).writeInt(gzip.length).writeBytes(gzip);
      handler.encoder().writeData(ctx, id, data, 0, false, ctx.newPromise());
      ctx.flush();
    }

    /**
     * A HEADERS frame without END_HEADERS, then {@code frames} CONTINUATION frames of 10 KiB of
     * literal headers each, never ending the block: written as raw bytes, past the codec.
     */
    void endlessContinuation(int id, int frames) {
      ByteBuf block = Unpooled.buffer();
      for (int i = 0; i < 100; i++) { // literal without indexing, new name "x-a", 100 bytes
        block.writeByte(0).writeByte(3).writeBytes(bytes("x-a")).writeByte(100);
        block.writeBytes(new byte[100]);
      }
      ByteBuf status = Unpooled.buffer().writeByte(0x88); // ":status: 200", indexed
      frame(1, 0, id, status);
      for (int i = 0; i < frames && ctx.channel().isActive(); i++) {
        frame(9, 0, id, block.retainedDuplicate());
      }
      block.release();
      ctx.flush();
    }

    private void frame(int type, int flags, int id, ByteBuf payload) {
      ByteBuf header = Unpooled.buffer(9);
      header.writeMedium(payload.readableBytes()).writeByte(type).writeByte(flags).writeInt(id);
      ctx.write(header);
      ctx.write(payload);
    }

    void goAway(int lastStreamId) {
      handler.goAway(
          ctx, lastStreamId, Http2Error.NO_ERROR.code(), Unpooled.EMPTY_BUFFER, ctx.newPromise());
      ctx.flush();
    }

    /** A GOAWAY straight to the wire, past the codec's own rules for what it sends. */
    void rawGoAway(int lastStreamId) {
      handler
          .encoder()
          .frameWriter()
          .writeGoAway(
              ctx,
              lastStreamId,
              Http2Error.NO_ERROR.code(),
              Unpooled.EMPTY_BUFFER,
              ctx.newPromise());
      ctx.flush();
    }

    /** {@code bytes} of DATA straight to the wire, past the client's flow-control window. */
    void rawData(int id, int bytes) {
      for (int sent = 0; sent < bytes; sent += 16 * 1024) {
        handler
            .encoder()
            .frameWriter()
            .writeData(
                ctx, id, Unpooled.wrappedBuffer(new byte[16 * 1024]), 0, false, ctx.newPromise());
      }
      ctx.flush();
    }

    void refuse(int id) {
      handler.encoder().writeRstStream(ctx, id, Http2Error.REFUSED_STREAM.code(), ctx.newPromise());
      ctx.flush();
    }
  }

  static Http2Headers ok() {
    return new DefaultHttp2Headers().status("200").set("content-type", "application/grpc");
  }

  static Http2Headers trailers(String grpcStatus) {
    return new DefaultHttp2Headers().set("grpc-status", grpcStatus);
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private final EventLoopGroup group =
      new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final Channel listener;
  private final ChannelGroup open = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);

  /** Connections the server accepted. */
  final AtomicInteger dials = new AtomicInteger();

  /** Streams the server saw opened. */
  final AtomicInteger streams = new AtomicInteger();

  /** Connections that closed. */
  final AtomicInteger closed = new AtomicInteger();

  /** RST_STREAM frames the client sent. */
  final AtomicInteger resets = new AtomicInteger();

  /** A server that takes connections and never answers. */
  static ScriptedHttp2Server silent() throws InterruptedException {
    return new ScriptedHttp2Server(null, null);
  }

  ScriptedHttp2Server(Http2Settings settings, Script script) throws InterruptedException {
    listener =
        new ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel.class)
            .childHandler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    dials.incrementAndGet();
                    open.add(ch);
                    ch.closeFuture().addListener(f -> closed.incrementAndGet());
                    ch.pipeline()
                        .addLast(script == null ? new Deaf() : handler(settings, script))
                        .addLast(new Quiet());
                  }
                })
            .bind("127.0.0.1", 0)
            .sync()
            .channel();
  }

  /** Reads and drops everything. */
  private static final class Deaf extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ReferenceCountUtil.release(msg);
    }
  }

  /** A client that broke the connection off is what these tests make: close, say nothing. */
  private static final class Quiet extends ChannelInboundHandlerAdapter {
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }

  private Http2ConnectionHandler handler(Http2Settings settings, Script script) {
    Http2ConnectionHandler[] self = new Http2ConnectionHandler[1];
    Http2ConnectionHandlerBuilder b =
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
                    script.onRequest(new Peer(ctx, self[0]), streamId);
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

                  @Override
                  public int onDataRead(
                      ChannelHandlerContext ctx,
                      int streamId,
                      ByteBuf data,
                      int padding,
                      boolean endOfStream) {
                    int processed = data.readableBytes() + padding;
                    script.onData(new Peer(ctx, self[0]), streamId, endOfStream);
                    return processed;
                  }

                  @Override
                  public void onRstStreamRead(
                      ChannelHandlerContext ctx, int streamId, long errorCode) {
                    resets.incrementAndGet();
                  }
                });
    if (settings != null) {
      b.initialSettings(settings);
    }
    self[0] = b.build();
    return self[0];
  }

  int port() {
    return ((InetSocketAddress) listener.localAddress()).getPort();
  }

  /** Connections still open on the server's side. */
  int openConnections() {
    return open.size();
  }

  @Override
  public void close() {
    listener.close().syncUninterruptibly();
    open.close().syncUninterruptibly();
    group.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
