package dev.tether.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;

/**
 * Turns each outbound {@link Frame} into one I/O buffer of exactly its encoded size from the
 * channel's allocator; any other message, such as an already encoded {@link ByteBuf}, passes
 * through untouched. A frame the protocol cannot carry fails its write promise and writes nothing.
 * Stateless: one instance may serve every channel.
 */
@Sharable
public final class FrameEncoder extends ChannelOutboundHandlerAdapter {
  /** The instance to share between pipelines. */
  public static final FrameEncoder INSTANCE = new FrameEncoder();

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (!(msg instanceof Frame frame)) {
      ctx.write(msg, promise);
      return;
    }
    ByteBuf encoded;
    try {
      encoded = FrameWriter.encode(frame, ctx.alloc());
    } catch (RuntimeException e) {
      promise.tryFailure(e);
      return;
    }
    ctx.write(encoded, promise);
  }
}
