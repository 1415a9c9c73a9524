package dev.tether.grpc;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2Stream;
import java.util.function.IntConsumer;

/**
 * The framed messages a call sent since its connection's last flush, gathered in one buffer and
 * handed to the HTTP/2 encoder as one write just before that flush: a stream of small messages then
 * pays the encoder's flow control, promises and listeners once per flush, not once per message. A
 * message of a frame or more is written as it comes (after what is held), uncopied. On the
 * connection's event loop only.
 */
final class HeldMessages {
  /** The buffer's first size: a few dozen small messages before it grows. */
  private static final int INITIAL_BYTES = 1024;

  private final GrpcConnection connection;
  private final Http2Stream stream;

  /** Hears each written (or failed) piece's size, as {@link GrpcConnection#writeData} tells it. */
  private final IntConsumer settled;

  private final Runnable writeOut = this::writeOut;

  /** Null while nothing is held. */
  private ByteBuf held;

  HeldMessages(GrpcConnection connection, Http2Stream stream, IntConsumer settled) {
    this.connection = connection;
    this.stream = stream;
    this.settled = settled;
  }

  void add(byte[] frame) {
    if (frame.length >= Http2CodecUtil.DEFAULT_MAX_FRAME_SIZE) {
      writeOut();
      connection.writeData(stream, Unpooled.wrappedBuffer(frame), settled);
      return;
    }
    if (held == null) {
      held = connection.context().alloc().buffer(Math.max(INITIAL_BYTES, frame.length));
      connection.beforeFlush(writeOut);
    }
    held.writeBytes(frame);
  }

  /** Writes what is held: before the connection flushes, or before the call's trailers. */
  void writeOut() {
    ByteBuf out = held;
    if (out != null) {
      held = null;
      connection.writeData(stream, out, settled);
    }
  }

  /** The call ended (reset, or its stream closed) before they were written: they never will be. */
  void drop() {
    ByteBuf out = held;
    if (out != null) {
      held = null;
      settled.accept(out.readableBytes());
      out.release();
    }
  }
}
