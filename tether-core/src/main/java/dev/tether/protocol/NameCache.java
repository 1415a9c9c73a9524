package dev.tether.protocol;

import io.netty.buffer.ByteBuf;

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

  private final byte[][] keys = new byte[SLOTS][];
  private final String[] names = new String[SLOTS];

  /**
   * The name whose UTF-8 bytes are {@code length} bytes at {@code index} of {@code in}; reads
   * nothing. On a miss it is decoded and validated as {@code field}, and remembered.
   */
  String lookup(ByteBuf in, int index, int length, String field) {
    if (length > MAX_CACHED_LENGTH) {
      return PayloadReader.decodeUtf8(in, index, length, field);
    }
    int hash = 1;
    for (int i = 0; i < length; i++) {
      hash = 31 * hash + in.getByte(index + i);
    }
    int slot = (hash ^ (hash >>> 16)) & (SLOTS - 1);
    byte[] key = keys[slot];
    if (key != null && matches(key, in, index, length)) {
      return names[slot];
    }
    String name = PayloadReader.decodeUtf8(in, index, length, field);
    byte[] bytes = new byte[length];
    in.getBytes(index, bytes);
    keys[slot] = bytes;
    names[slot] = name;
    return name;
  }

  private static boolean matches(byte[] key, ByteBuf in, int index, int length) {
    if (key.length != length) {
      return false;
    }
    for (int i = 0; i < length; i++) {
      if (key[i] != in.getByte(index + i)) {
        return false;
      }
    }
    return true;
  }
}
