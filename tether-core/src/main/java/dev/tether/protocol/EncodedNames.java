package dev.tether.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;

/**
 * The wire form (length varint and UTF-8) of the service and operation names a connection recently
 * sent, so that a request naming them again is one bulk copy instead of a per-character encode into
 * a pooled direct buffer, which showed as a third of the client loop's time at 128 calls in flight.
 * The sender's counterpart of {@link NameCache}: direct-mapped, bounded, one per connection, used
 * on its event loop only.
 */
public final class EncodedNames {
  private static final int SLOTS = 32;

  /** All three made by the first write: an idle connection holds none. */
  private String[] names;

  private byte[][] encodings;

  /** An encoding of up to 8 bytes as a big-endian long, its bytes first; 0 for longer ones. */
  private long[] words;

  /**
   * Appends {@code name} as a protocol string, exactly as {@link PayloadWriter#writeString} does.
   */
  void write(ByteBuf out, String name) {
    if (name.length() > NameCache.MAX_CACHED_LENGTH) {
      PayloadWriter.writeString(out, name);
      return;
    }
    if (names == null) {
      names = new String[SLOTS];
      encodings = new byte[SLOTS][];
      words = new long[SLOTS];
    }
    int hash = name.hashCode();
    int slot = (hash ^ (hash >>> 16)) & (SLOTS - 1);
    String cached = names[slot];
    byte[] encoding;
    if (cached == name || name.equals(cached)) {
      encoding = encodings[slot];
    } else {
      encoding = encode(name);
      names[slot] = name;
      encodings[slot] = encoding;
      words[slot] = asWord(encoding);
    }
    if (encoding.length <= Long.BYTES && out.writableBytes() >= Long.BYTES) {
      // One 8-byte store: a bulk copy's setup costs more than a short name. The bytes stored past
      // the name lie beyond the writer index, where what is written next overwrites them.
      int at = out.writerIndex();
      out.setLong(at, words[slot]);
      out.writerIndex(at + encoding.length);
    } else {
      out.writeBytes(encoding);
    }
  }

  private static long asWord(byte[] encoding) {
    if (encoding.length > Long.BYTES) {
      return 0;
    }
    long word = 0;
    for (int i = 0; i < Long.BYTES; i++) {
      word = word << Byte.SIZE | (i < encoding.length ? encoding[i] & 0xFF : 0);
    }
    return word;
  }

  /**
   * The one encoder of strings serves here too, so a cached name's bytes cannot differ from an
   * uncached one's.
   */
  private static byte[] encode(String name) {
    ByteBuf scratch = Unpooled.buffer(PayloadWriter.stringSize(name));
    try {
      PayloadWriter.writeString(scratch, name);
      return ByteBufUtil.getBytes(scratch);
    } finally {
      scratch.release();
    }
  }
}
