package dev.tether.grpc;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http2.DefaultHttp2Connection;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2ConnectionHandlerBuilder;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2EventAdapter;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * An HTTP/2 client on the project's own Netty that sends what grpc-java's client never would (a
 * foreign content-type, streams above the server's limit) and records every frame it gets back as a
 * line of text: "headers 3 415 13", "reset 5 7", "settings".
 */
final class RawHttp2Client implements AutoCloseable {
  private final EventLoopGroup group =
      new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final BlockingQueue<String> frames = new LinkedBlockingQueue<>();
  private final Http2Connection connection = new DefaultHttp2Connection(false);
  private final Http2ConnectionHandler handler;
  private final Channel channel;

  RawHttp2Client(int port) throws InterruptedException {
    handler =
        new Http2ConnectionHandlerBuilder()
            .connection(connection)
            .frameListener(new Recorder())
            // Closing does not wait for open streams (Netty's default waits 30 s).
            .gracefulShutdownTimeoutMillis(0)
            .build();
    channel =
        new Bootstrap()
            .group(group)
            .channel(NioSocketChannel.class)
            .handler(handler)
            .connect("127.0.0.1", port)
            .sync()
            .channel();
  }

  /** The debug data of the last GOAWAY the server sent, as text; null before one came. */
  private volatile String goAwayDebugData;

  String goAwayDebugData() {
    return goAwayDebugData;
  }

  /** Sends a PING carrying {@code data}; its answer is recorded as "ping-ack data". */
  void ping(long data) {
    channel
        .eventLoop()
        .execute(
            () -> {
              ChannelHandlerContext ctx = channel.pipeline().context(handler);
              handler.encoder().writePing(ctx, false, data, ctx.newPromise());
              handler.flush(ctx);
            });
  }

  /** The next frame the server sent, waiting at most ten seconds; null if none came. */
  String next() throws InterruptedException {
    return frames.poll(10, TimeUnit.SECONDS);
  }

  /**
   * Opens stream {@code streamId} with {@code headers}; {@code ignoreLimit} lifts the server's
   * stream limit on this side, to see what the server does with a client that ignores it.
   */
  void open(int streamId, Http2Headers headers, boolean ignoreLimit) throws Exception {
    channel
        .eventLoop()
        .submit(
            () -> {
              if (ignoreLimit) {
                connection.local().maxActiveStreams(Integer.MAX_VALUE);
              }
              ChannelHandlerContext ctx = channel.pipeline().context(handler);
              handler.encoder().writeHeaders(ctx, streamId, headers, 0, false, ctx.newPromise());
              handler.flush(ctx);
            })
        .get(10, TimeUnit.SECONDS);
  }

  /**
   * Writes {@code data} (released here) on stream {@code streamId} as the server's windows let it
   * through; the future is true once all of it went out, false if the stream ended first.
   */
  CompletableFuture<Boolean> send(int streamId, ByteBuf data) {
    return send(streamId, data, false);
  }

  /** As {@link #send(int, ByteBuf)}, ending this side of the stream with it when {@code end}. */
  CompletableFuture<Boolean> send(int streamId, ByteBuf data, boolean end) {
    CompletableFuture<Boolean> sent = new CompletableFuture<>();
    channel
        .eventLoop()
        .execute(
            () -> {
              ChannelHandlerContext ctx = channel.pipeline().context(handler);
              handler
                  .encoder()
                  .writeData(ctx, streamId, data, 0, end, ctx.newPromise())
                  .addListener(written -> sent.complete(written.isSuccess()));
              handler.flush(ctx);
            });
    return sent;
  }

  /** Resets stream {@code streamId} (CANCEL), as a client giving up on its call does. */
  void reset(int streamId) throws Exception {
    channel
        .eventLoop()
        .submit(
            () -> {
              ChannelHandlerContext ctx = channel.pipeline().context(handler);
              handler.resetStream(ctx, streamId, Http2Error.CANCEL.code(), ctx.newPromise());
              handler.flush(ctx);
            })
        .get(10, TimeUnit.SECONDS);
  }

  /**
   * Opens {@code count} streams with {@code headers}, from stream 3 on, resetting each (CANCEL) at
   * once: the 2023 "rapid reset" attack. Ignores the server's stream limit.
   */
  void rapidReset(int count, Http2Headers headers) throws Exception {
    channel
        .eventLoop()
        .submit(
            () -> {
              connection.local().maxActiveStreams(Integer.MAX_VALUE);
              ChannelHandlerContext ctx = channel.pipeline().context(handler);
              for (int i = 0; i < count && channel.isActive(); i++) {
                int streamId = 3 + 2 * i;
                handler.encoder().writeHeaders(ctx, streamId, headers, 0, false, ctx.newPromise());
                handler.resetStream(ctx, streamId, Http2Error.CANCEL.code(), ctx.newPromise());
                handler.flush(ctx);
              }
            })
        .get(10, TimeUnit.SECONDS);
  }

  @Override
  public void close() {
    channel.close().syncUninterruptibly();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  private final class Recorder extends Http2EventAdapter {
    @Override
    public void onSettingsRead(ChannelHandlerContext ctx, Http2Settings settings) {
      frames.add("settings");
    }

    @Override
    public void onHeadersRead(
        ChannelHandlerContext ctx,
        int streamId,
        Http2Headers headers,
        int padding,
        boolean endOfStream) {
      frames.add("headers " + streamId + " " + headers.status() + " " + headers.get("grpc-status"));
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
        ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding, boolean end) {
      return data.readableBytes() + padding;
    }

    @Override
    public void onGoAwayRead(
        ChannelHandlerContext ctx, int lastStreamId, long errorCode, ByteBuf debugData) {
      goAwayDebugData = debugData.toString(StandardCharsets.US_ASCII);
      frames.add("goaway " + errorCode);
    }

    @Override
    public void onPingAckRead(ChannelHandlerContext ctx, long data) {
      frames.add("ping-ack " + data);
    }

    @Override
    public void onRstStreamRead(ChannelHandlerContext ctx, int streamId, long errorCode) {
      frames.add("reset " + streamId + " " + errorCode);
    }
  }
}
