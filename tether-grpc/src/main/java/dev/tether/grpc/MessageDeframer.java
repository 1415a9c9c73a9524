package dev.tether.grpc;

import io.grpc.Status;
import io.grpc.StatusException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;

/**
 * Cuts one stream's DATA bytes into gRPC messages (a compressed flag, a four-byte big-endian
 * length, the bytes): frame boundaries have nothing to do with message boundaries. Counts the bytes
 * it handed out, so the stream returns flow-control credit only for what was asked for. Lives on
 * the connection's event loop. Public for the client side ({@code dev.tether.grpc.client}), which
 * cuts answers the same way.
 */
public final class MessageDeframer {
  private static final int PREFIX = 5;

  private final ByteBufAllocator alloc;

  /**
   * What waits: the one buffer that came (most calls' whole request), or {@link #composite} once a
   * second came while bytes of the first still waited.
   */
  private ByteBuf buffered = Unpooled.EMPTY_BUFFER;

  /** Null while at most one buffer waits: a composite per call cost more than its message. */
  private CompositeByteBuf composite;

  /** Set by {@link #release}: bytes that come later are not kept. */
  private boolean released;

  private final int maxMessageSize;

  /** The stream's grpc-encoding is gzip: messages may be compressed. */
  private final boolean gzip;

  /** Bytes received, and bytes handed out as messages (prefixes included), since the start. */
  private long received;

  private long handedOut;

  public MessageDeframer(ByteBufAllocator alloc, int maxMessageSize, boolean gzip) {
    this.alloc = alloc;
    this.maxMessageSize = maxMessageSize;
    this.gzip = gzip;
  }

  /** One message's bytes, as sent: {@code compressed} ones are gzip. */
  public record Message(byte[] bytes, boolean compressed) {}

  /** Takes {@code data} (retained here; the caller keeps its own reference). */
  public void add(ByteBuf data) {
    int n = data.readableBytes();
    if (n == 0 || released) {
      return;
    }
    received += n;
    if (!buffered.isReadable()) {
      buffered.release();
      composite = null;
      buffered = data.retain();
      return;
    }
    if (composite == null) {
      composite = alloc.compositeBuffer(Integer.MAX_VALUE);
      composite.addComponent(true, buffered);
      buffered = composite;
    }
    composite.addComponent(true, data.retain());
  }

  /**
   * The next whole message, copied out (so nothing reference-counted leaves the event loop), or
   * null until more bytes arrive.
   *
   * @throws StatusException RESOURCE_EXHAUSTED for a message over the limit, INTERNAL for a
   *     compressed one on a stream without gzip, or a bad flag
   */
  public Message next() throws StatusException {
    if (buffered.readableBytes() < PREFIX) {
      return null;
    }
    int start = buffered.readerIndex();
    int flag = buffered.getUnsignedByte(start);
    long length = buffered.getUnsignedInt(start + 1);
    if (flag != 0 && !(flag == 1 && gzip)) {
      throw Status.INTERNAL
          .withDescription(
              flag == 1
                  ? "compressed message without a supported grpc-encoding"
                  : "bad gRPC message flag " + flag)
          .asException();
    }
    if (length > maxMessageSize) {
      throw Status.RESOURCE_EXHAUSTED
          .withDescription("gRPC message exceeds maximum size " + maxMessageSize + ": " + length)
          .asException();
    }
    if (buffered.readableBytes() < PREFIX + length) {
      return null;
    }
    buffered.skipBytes(PREFIX);
    byte[] message = new byte[(int) length];
    buffered.readBytes(message);
    if (composite != null) {
      composite.discardReadComponents();
    }
    handedOut += PREFIX + length;
    return new Message(message, flag == 1);
  }

  /** Nothing buffered: every byte received was handed out. */
  boolean isEmpty() {
    return buffered.readableBytes() == 0;
  }

  long received() {
    return received;
  }

  long handedOut() {
    return handedOut;
  }

  /** Frees what is buffered; the stream is over. */
  public void release() {
    if (buffered.refCnt() > 0) {
      buffered.release();
    }
    buffered = Unpooled.EMPTY_BUFFER;
    composite = null;
    released = true;
  }
}
