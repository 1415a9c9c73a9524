package dev.tether.codec;

import static dev.tether.codec.SmileTokens.END_OBJECT;
import static dev.tether.codec.SmileTokens.HEADER;
import static dev.tether.codec.SmileTokens.KEY_SHORT_ASCII;
import static dev.tether.codec.SmileTokens.MAX_SHORT_ASCII;
import static dev.tether.codec.SmileTokens.START_OBJECT;
import static dev.tether.codec.SmileTokens.isAscii;

import java.nio.charset.StandardCharsets;

/**
 * The common case of a {@link RecordCodec}, written and read by hand: a record whose components are
 * longs, ints, booleans, Strings and byte arrays, with ASCII field names of at most 64 bytes. It
 * writes exactly the Smile bytes Jackson's generator writes with the default codec's settings
 * (header with the raw-binary flag, names written out, binary raw), and reads the subset of Smile
 * such values use. Anything outside that subset (a long or non-ASCII string to write; a shared
 * name, a float or a nested value to read) makes it answer {@code null}, and the caller takes
 * Jackson's streaming path for that value, so a peer may write any valid Smile.
 */
final class SmileRecordEncoding {
  /**
   * The largest first guess at a document's size: after a large value a small one would otherwise
   * allocate as much; a larger document grows its array by doubling.
   */
  private static final int MAX_GUESSED_SIZE = 4096;

  private final RecordComponentCodec[] components;

  /** Each component's name token and bytes, ready to copy. */
  private final byte[][] keys;

  /**
   * The size of the document encoded last, the first guess at the next one's. Racy on purpose: any
   * value is a valid guess, and an int is written whole.
   */
  private int lastSize = 64;

  private SmileRecordEncoding(RecordComponentCodec[] components, byte[][] keys) {
    this.components = components;
    this.keys = keys;
  }

  /**
   * The hand-written encoding of a record with these components, or null when one does not fit it.
   */
  static SmileRecordEncoding of(RecordComponentCodec[] components) {
    byte[][] keys = new byte[components.length][];
    for (int i = 0; i < components.length; i++) {
      String name = components[i].name();
      if (!components[i].isScalar()
          || name.isEmpty()
          || name.length() > MAX_SHORT_ASCII
          || !isAscii(name)) {
        return null;
      }
      byte[] ascii = name.getBytes(StandardCharsets.US_ASCII);
      keys[i] = new byte[ascii.length + 1];
      keys[i][0] = (byte) (KEY_SHORT_ASCII + ascii.length - 1);
      System.arraycopy(ascii, 0, keys[i], 1, ascii.length);
    }
    return new SmileRecordEncoding(components, keys);
  }

  /**
   * The Smile document of {@code record} (not null), or null when a value needs Jackson's
   * generator. It is written into an array the size of the previous document of this type: values
   * of one type mostly encode to one size, and then the array is the result, with no scratch buffer
   * to look up per thread and no copy. (Adding the size up first costs a second call of every
   * accessor, which measured slower.)
   */
  byte[] encode(Object record) {
    SmileWriter out = new SmileWriter(new byte[lastSize]);
    out.bytes(HEADER);
    out.put(START_OBJECT);
    for (int i = 0; i < components.length; i++) {
      out.bytes(keys[i]);
      if (!components[i].writeSmile(out, record)) {
        return null;
      }
    }
    out.put(END_OBJECT);
    if (out.isFull()) {
      return out.array();
    }
    lastSize = Math.min(out.size(), MAX_GUESSED_SIZE);
    return out.toArray();
  }

  /**
   * The constructor arguments read from {@code bytes} over {@code defaults}, or null when the
   * document uses Smile beyond this subset (or is not an object, or is malformed).
   */
  Object[] decode(byte[] bytes, Object[] defaults) {
    SmileReader in = new SmileReader(bytes);
    if (!in.header() || in.next() != START_OBJECT) {
      return null;
    }
    Object[] arguments = defaults.clone();
    int expected = 0;
    for (int token = in.next(); token != END_OBJECT; token = in.next()) {
      int index = in.key(token, keys, expected);
      expected = index + 1;
      if (index == SmileReader.UNSUPPORTED) {
        return null;
      }
      Object value = in.value(index < 0 ? null : components[index]);
      if (value == SmileReader.UNSUPPORTED_VALUE) {
        return null;
      }
      if (index >= 0) {
        // A null, even after an earlier value of a repeated field, leaves the default: the last
        // value wins, as in databind.
        arguments[index] = value != null ? value : defaults[index];
      }
    }
    return in.atEnd() ? arguments : null;
  }
}
