package dev.tether.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;

/**
 * The service and operation names a connection has recently received, so that a request naming them
 * again reuses the String instead of decoding a new one (and its hash is already known when the
 * dispatcher looks the name up). Direct-mapped and bounded: a peer sending ever-new names only
 * replaces entries. One per decoder, used on its event loop only.
 */
final class NameCache {
  private static final int SLOTS = 32;

  /** Longer names are decoded each time: they are rare, and the cache's memory stays bounded. */
  static final int MAX_CACHED_LENGTH = 64;

  /** Slots of the table of names of up to 8 bytes, kept apart from the one of longer names. */
  private static final int WORD_SLOTS = 16;

  /** Keeps the top bits of a mixed hash: as many as index the word slots. */
  private static final int WORD_SLOT_SHIFT =
      Integer.SIZE - Integer.numberOfTrailingZeros(WORD_SLOTS);

  /**
   * Names of 1 to 8 bytes (most service and operation names) are read as one long, with no copy and
   * no array comparison: their bytes, their length and their String, by slot. Made by the first
   * such lookup: an idle connection's decoder holds none.
   */
  private long[] words;

  private byte[] wordLengths;
  private String[] wordNames;

  /** The three arrays are made by the first lookup: an idle connection's decoder holds none. */
  private byte[][] keys;

  private String[] names;

  /**
   * The name's bytes, copied out of the frame in one bulk read: hashing and comparing them byte by
   * byte through the buffer paid a bounds and liveness check per byte, most of a lookup's cost.
   */
  private byte[] scratch;

  /**
   * The name whose UTF-8 bytes are {@code length} bytes at {@code index} of {@code in}; reads
   * nothing. On a miss it is decoded and validated as {@code field}, and remembered.
   */
  String lookup(ByteBuf in, int index, int length, String field) {
    if (length > MAX_CACHED_LENGTH) {
      return PayloadReader.decodeUtf8(in, index, length, field);
    }
    if (length > 0 && length <= Long.BYTES && in.writerIndex() - index >= Long.BYTES) {
      return lookupWord(in, index, length, field);
    }
    if (scratch == null) {
      keys = new byte[SLOTS][];
      names = new String[SLOTS];
      scratch = new byte[MAX_CACHED_LENGTH];
    }
    byte[] bytes = scratch;
    in.getBytes(index, bytes, 0, length);
    int hash = 1;
    for (int i = 0; i < length; i++) {
      hash = 31 * hash + bytes[i];
    }
    int slot = (hash ^ (hash >>> 16)) & (SLOTS - 1);
    byte[] key = keys[slot];
    if (key != null && Arrays.equals(key, 0, key.length, bytes, 0, length)) {
      return names[slot];
    }
    String name = PayloadReader.decodeUtf8(in, index, length, field);
    keys[slot] = Arrays.copyOf(bytes, length);
    names[slot] = name;
    return name;
  }

  /** A name of 1 to 8 bytes with at least 8 bytes readable from its start. */
  private String lookupWord(ByteBuf in, int index, int length, String field) {
    if (words == null) {
      words = new long[WORD_SLOTS];
      wordLengths = new byte[WORD_SLOTS];
      wordNames = new String[WORD_SLOTS];
    }
    // Big-endian: the name's bytes are the long's high ones; the shift drops what follows it.
    long word = in.getLong(index) >>> (Long.SIZE - Byte.SIZE * length);
    int mixed = (int) (word ^ (word >>> 32)) * 0x9E3779B9;
    int slot = mixed >>> WORD_SLOT_SHIFT;
    if (words[slot] == word && wordLengths[slot] == length) {
      return wordNames[slot];
    }
    String name = PayloadReader.decodeUtf8(in, index, length, field);
    words[slot] = word;
    wordLengths[slot] = (byte) length;
    wordNames[slot] = name;
    return name;
  }
}
