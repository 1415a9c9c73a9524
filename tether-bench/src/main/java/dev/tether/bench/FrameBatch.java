package dev.tether.bench;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;

/**
 * Outgoing raw frames of one connection, encoded back to back into a few pooled buffers instead of
 * one buffer per frame, and handed to the socket by one flush per event-loop turn: a read batch of
 * 128 requests becomes a handful of buffers and one {@code writev}. Confined to the event loop.
 */
final class FrameBatch {

  /** Size of each batch buffer; a frame that does not fit in what is left starts the next one. */
  static final int BATCH_BUFFER_BYTES = 16 * 1024;

  private final ChannelHandlerContext ctx;

  /** Non-null while encoded frames wait in it, not yet written. */
  private ByteBuf current;

  /** True when buffers were written to the channel since the last flush. */
  private boolean written;

  FrameBatch(ChannelHandlerContext ctx) {
    this.ctx = ctx;
  }

  /** Encodes one frame into the batch; nothing reaches the socket before {@link #flush()}. */
  void add(int requestId, byte[] payload) {
    int frameBytes = RawFrames.frameBytes(payload.length);
    if (current != null && current.writableBytes() < frameBytes) {
      writeCurrent();
    }
    if (current == null) {
      current = ctx.alloc().ioBuffer(Math.max(BATCH_BUFFER_BYTES, frameBytes));
    }
    RawFrames.encode(current, requestId, payload);
  }

  /** Writes what is batched and flushes the channel, if anything was added. */
  void flush() {
    if (current != null) {
      writeCurrent();
    }
    if (written) {
      written = false;
      ctx.flush();
    }
  }

  /** Drops frames never written; for a closed connection. */
  void discard() {
    if (current != null) {
      current.release();
      current = null;
    }
    written = false;
  }

  private void writeCurrent() {
    ctx.write(current, ctx.voidPromise());
    current = null;
    written = true;
  }
}
