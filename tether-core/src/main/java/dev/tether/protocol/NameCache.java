package dev.tether.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;

/**
 * The service and operation names a connection has recently received, so that a request naming
 * them again reuses the String instead of decoding a new one (and its hash is already known when
 * the dispatcher looks the name up). Direct-mapped and bounded: a peer sending ever-new names only
 * replaces entries. One per decoder, used on its event loop only.
 */
final class NameCache {
  private static final int SLOTS = 32;
  /** Longer names are decoded each time: they are rare, and the cache's memory stays bounded. */
  static final int MAX_CACHED_LENGTH = 64;

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
}
