package dev.tether.admin;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.concurrent.ScheduledFuture;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The header deadline of one admin connection: from the first byte of a request, its head and body
 * must all be in within the deadline, or the connection is answered {@code 408} and closed, so a
 * client that trickles a request byte by byte (slowloris) holds its connection no longer than that.
 * Also closes the connection when the {@code IdleStateHandler} before it reports it idle.
 *
 * <p>One instance per connection, at the head of its pipeline (raw bytes, where the 408 is
 * written); its {@link #decoder} starts the deadline whenever it holds bytes of a request not yet
 * whole, including the start of a pipelined request that came in the same read as the end of the
 * one before; its {@link #completion} handler, after the aggregator, sees whole requests. All run
 * on the connection's event loop.
 */
final class ConnectionTimers extends ChannelInboundHandlerAdapter {
  private static final byte[] TOO_SLOW =
      ("HTTP/1.1 408 Request Timeout\r\nContent-Type: text/plain\r\nContent-Length: 30\r\n"
              + "Connection: close\r\n\r\nrequest not received in time\r\n")
          .getBytes(StandardCharsets.US_ASCII);

  private final long headerDeadlineNanos;

  /** Non-null while a request has begun to arrive and is not yet whole. */
  private ScheduledFuture<?> deadline;

  /** Set once this handler is in its pipeline: the 408 goes out from here, as raw bytes. */
  private ChannelHandlerContext raw;

  ConnectionTimers(long headerDeadlineNanos) {
    this.headerDeadlineNanos = headerDeadlineNanos;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    raw = ctx;
  }

  /** Bytes of a request are waiting: the deadline runs unless it already does. */
  private void requestBegun() {
    if (deadline == null && raw.channel().isActive()) {
      deadline =
          raw.executor().schedule(() -> tooSlow(raw), headerDeadlineNanos, TimeUnit.NANOSECONDS);
    }
  }

  private void tooSlow(ChannelHandlerContext ctx) {
    deadline = null;
    ctx.channel().config().setAutoRead(false);
    ctx.writeAndFlush(Unpooled.wrappedBuffer(TOO_SLOW)).addListener(ChannelFutureListener.CLOSE);
  }

  private void requestArrived() {
    if (deadline != null) {
      deadline.cancel(false);
      deadline = null;
    }
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
    if (event instanceof IdleStateEvent) {
      ctx.close();
      return;
    }
    ctx.fireUserEventTriggered(event);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    requestArrived();
    ctx.fireChannelInactive();
  }

  /**
   * The request decoder of this connection: it sees where one request ends and the next begins,
   * which the raw bytes do not tell.
   */
  HttpRequestDecoder decoder(int maxInitialLine, int maxHeaderSize, int maxChunkSize) {
    return new Decoder(maxInitialLine, maxHeaderSize, maxChunkSize);
  }

  private final class Decoder extends HttpRequestDecoder {
    Decoder(int maxInitialLine, int maxHeaderSize, int maxChunkSize) {
      super(maxInitialLine, maxHeaderSize, maxChunkSize);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf buffer, List<Object> out)
        throws Exception {
      // Called again for the bytes left after each whole request, after that request went on
      // (and stopped the deadline), so the next one's first bytes start it anew.
      if (buffer.isReadable()) {
        requestBegun();
      }
      super.decode(ctx, buffer, out);
    }
  }

  /** The handler to place after the aggregator: each whole request stops the deadline. */
  ChannelInboundHandlerAdapter completion() {
    return new Completion();
  }

  private final class Completion extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (msg instanceof FullHttpRequest) {
        requestArrived();
      }
      ctx.fireChannelRead(msg);
    }
  }
}
