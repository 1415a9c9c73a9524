package dev.tether.grpc;

import io.grpc.Status;
import io.grpc.StatusException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * Cuts one stream's DATA bytes into gRPC messages (a compressed flag, a four-byte big-endian
 * length, the bytes): frame boundaries have nothing to do with message boundaries. Counts the bytes
 * it handed out, so the stream returns flow-control credit only for what was asked for. What it
 * holds past a DATA's turn is in a buffer of its own, so its bytes are what it costs. Lives on the
 * connection's event loop. Public for the client side ({@code dev.tether.grpc.client}), which cuts
 * answers the same way.
 */
public final class MessageDeframer {
  private static final int PREFIX = 5;

  /** The first room for bytes kept past their DATA's turn. */
  private static final int FIRST_KEPT = 256;

  private final ByteBufAllocator alloc;

  /**
   * The latest DATA, retained while its turn lasts (until {@link #keepRest} or the next {@link
   * #add}): most calls' whole request, read where it arrived. Null while none is held or {@link
   * #kept} is in use.
   */
  private ByteBuf latest;

  /**
   * Bytes kept past their DATA's turn, copied into a buffer of the deframer's own: a slice of the
   * connection's read buffer kept instead would hold all of that buffer (up to 64 KiB for a
   * one-byte frame), so what the stream holds could not be counted by its bytes. Null while nothing
   * is kept; later DATA is appended to it.
   */
  private ByteBuf kept;

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

  /**
   * Takes {@code data} (retained here for its turn; the caller keeps its own reference). What an
   * earlier DATA left unread is copied first.
   */
  public void add(ByteBuf data) {
    int n = data.readableBytes();
    if (n == 0 || released) {
      return;
    }
    received += n;
    keepRest();
    if (kept == null) {
      latest = data.retain();
    } else {
      append(data, n);
    }
  }

  /**
   * The latest DATA's turn is over: what is left of it is copied into the deframer's own buffer, so
   * nothing the stream holds stays a slice of the connection's read buffer. Call it once the
   * messages asked for are taken; {@link #add} calls it too.
   */
  public void keepRest() {
    ByteBuf rest = latest;
    if (rest == null) {
      trimKept();
      return;
    }
    latest = null;
    if (rest.isReadable()) {
      kept = alloc.buffer(Math.max(FIRST_KEPT, rest.readableBytes()));
      kept.writeBytes(rest);
    }
    rest.release();
  }

  /**
   * Gives back the room of the buffer kept once at most a quarter of it is unread: a large message
   * read leaves its room behind while the next one has only begun, and the budget counts bytes, not
   * room (a client ending each 4 MiB message in the frame that begins the next made each stream
   * hold 4 MiB for one byte counted). The bytes moved are fewer than those read since the room was
   * taken.
   */
  private void trimKept() {
    if (kept == null || kept.capacity() <= FIRST_KEPT) {
      return;
    }
    int unread = kept.readableBytes();
    if (unread <= kept.capacity() / 4) {
      ByteBuf smaller = alloc.buffer(Math.max(FIRST_KEPT, 2 * unread));
      smaller.writeBytes(kept);
      kept.release();
      kept = smaller;
    }
  }

  private void append(ByteBuf data, int n) {
    if (kept.writableBytes() < n) {
      // Moves the unread bytes to the front when at least half the room was read, which pays for
      // itself. Moving a full buffer to win the few bytes of one small message, message after
      // message, would copy the stream's whole window for each (a client streaming small messages
      // faster than its service took them made the loop copy 170,000 bytes per byte received).
      kept.discardSomeReadBytes();
    }
    if (kept.writableBytes() < n) {
      int needed = kept.readableBytes() + n;
      int room = grown(needed);
      // The unread bytes move once per growth (which copies them anyway), or once per message
      // when the message at the front will fill the room: neither adds up to more than their size.
      kept.discardReadBytes();
      if (room != kept.capacity()) {
        kept.capacity(room);
      }
    }
    kept.writeBytes(data, data.readerIndex(), n);
  }

  /**
   * Room for {@code needed} unread bytes: twice the room so far, but no more than the message at
   * the front needs when it is larger than {@code needed}, so a message one byte short of its end
   * takes no more room than itself.
   */
  private int grown(int needed) {
    long doubled = Math.max(needed, 2L * kept.capacity());
    if (kept.readableBytes() >= PREFIX) {
      long front = PREFIX + kept.getUnsignedInt(kept.readerIndex() + 1);
      if (front >= needed && front <= maxMessageSize + (long) PREFIX) {
        doubled = Math.min(doubled, front);
      }
    }
    return (int) Math.min(doubled, Integer.MAX_VALUE - 8);
  }

  /** Where the bytes to read are: the latest DATA, or those kept; null for none. */
  private ByteBuf source() {
    return kept != null ? kept : latest;
  }

  /**
   * The next whole message, copied out (so nothing reference-counted leaves the event loop), or
   * null until more bytes arrive.
   *
   * @throws StatusException RESOURCE_EXHAUSTED for a message over the limit, INTERNAL for a
   *     compressed one on a stream without gzip, or a bad flag
   */
  public Message next() throws StatusException {
    ByteBuf buffered = source();
    if (buffered == null || buffered.readableBytes() < PREFIX) {
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
    handedOut += PREFIX + length;
    if (!buffered.isReadable()) {
      // All read: hold none of it, not even the buffer's room, until more comes.
      dropSource();
    }
    return new Message(message, flag == 1);
  }

  private void dropSource() {
    if (kept != null) {
      kept.release();
      kept = null;
    } else if (latest != null) {
      latest.release();
      latest = null;
    }
  }

  /** Nothing buffered: every byte received was handed out. */
  boolean isEmpty() {
    ByteBuf buffered = source();
    return buffered == null || !buffered.isReadable();
  }

  long received() {
    return received;
  }

  long handedOut() {
    return handedOut;
  }

  /** Frees what is buffered; the stream is over. */
  public void release() {
    released = true;
    if (latest != null) {
      latest.release();
      latest = null;
    }
    if (kept != null) {
      kept.release();
      kept = null;
    }
  }
}
