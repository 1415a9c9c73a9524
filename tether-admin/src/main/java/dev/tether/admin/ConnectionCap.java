package dev.tether.admin;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Holds the admin port to a number of open connections: one past the cap is answered {@code 503}
 * and closed at once, so idle or hostile clients of the page cannot take the descriptors the
 * service needs. The first handler of every admin connection; one instance per admin server.
 */
@ChannelHandler.Sharable
final class ConnectionCap extends ChannelInboundHandlerAdapter {
  private static final byte[] FULL =
      ("HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: 26\r\n"
              + "Connection: close\r\n\r\ntoo many admin connections")
          .getBytes(StandardCharsets.US_ASCII);

  private final int max;
  private final AtomicInteger open = new AtomicInteger();

  ConnectionCap(int max) {
    this.max = max;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    if (open.incrementAndGet() > max) {
      open.decrementAndGet();
      // Raw bytes from the head of the pipeline, and nothing read: the HTTP codec never sees it.
      ctx.channel().config().setAutoRead(false);
      ctx.writeAndFlush(Unpooled.wrappedBuffer(FULL)).addListener(ChannelFutureListener.CLOSE);
      return;
    }
    ctx.channel().closeFuture().addListener(f -> open.decrementAndGet());
    ctx.fireChannelActive();
  }

  /** Connections open now, within the cap. */
  int open() {
    return open.get();
  }
}
