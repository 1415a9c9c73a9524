package dev.tether.codec;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The common case of a {@link RecordCodec}, written and read by hand: a record whose components
 * are longs, ints, booleans, Strings and byte arrays, with ASCII field names of at most 64 bytes.
 * It writes exactly the Smile bytes Jackson's generator writes with the default codec's settings
 * (header with the raw-binary flag, names written out, binary raw), and reads the subset of Smile
 * such values use. Anything outside that subset (a long or non-ASCII string to write; a shared
 * name, a float or a nested value to read) makes it answer {@code null}, and the caller takes
 * Jackson's streaming path for that value, so a peer may write any valid Smile.
 */
final class SmileRecordEncoding {
  // Smile tokens, from the format's specification.
  private static final byte[] HEADER = {':', ')', '\n', 0x04}; // version 0, raw binary, no shared names or values
  private static final int START_OBJECT = 0xFA;
  private static final int END_OBJECT = 0xFB;
  private static final int KEY_EMPTY = 0x20;
  private static final int KEY_SHORT_ASCII = 0x80; // 0x80-0xBF: ASCII name of 1-64 bytes
  private static final int EMPTY_STRING = 0x20;
  private static final int NULL = 0x21;
  private static final int FALSE = 0x22;
  private static final int TRUE = 0x23;
  private static final int INT32 = 0x24;
  private static final int INT64 = 0x25;
  private static final int TINY_ASCII = 0x40; // 0x40-0x5F: 1-32 bytes
  private static final int SHORT_ASCII = 0x60; // 0x60-0x7F: 33-64 bytes
  private static final int TINY_UNICODE = 0x80; // 0x80-0x9F: 2-33 bytes
  private static final int SHORT_UNICODE = 0xA0; // 0xA0-0xBF: 34-65 bytes
  private static final int SMALL_INT = 0xC0; // 0xC0-0xDF: zigzag -16..15
  private static final int RAW_BINARY = 0xFD;
  private static final int MAX_SHORT_ASCII = 64;
  /**
   * The largest first guess at a document's size: after a large value a small one would otherwise
   * allocate as much; a larger document grows its array by doubling.
   */
  private static final int MAX_GUESSED_SIZE = 4096;
  private final RecordComponentCodec[] components;
  /** Each component's name token and bytes, ready to copy. */
  private final byte[][] keys;
  /**
   * The size of the document encoded last, the first guess at the next one's. Racy on purpose:
   * any value is a valid guess, and an int is written whole.
   */
  private int lastSize = 64;

  private SmileRecordEncoding(RecordComponentCodec[] components, byte[][] keys) {
    this.components = components;
    this.keys = keys;
  }

  /** The hand-written encoding of a record with these components, or null when one does not fit it. */
  static SmileRecordEncoding of(RecordComponentCodec[] components) {
    byte[][] keys = new byte[components.length][];
    for (int i = 0; i < components.length; i++) {
      String name = components[i].name();
      if (!components[i].isScalar() || name.isEmpty() || name.length() > MAX_SHORT_ASCII || !isAscii(name)) {
        return null;
      }
      byte[] ascii = name.getBytes(StandardCharsets.US_ASCII);
      keys[i] = new byte[ascii.length + 1];
      keys[i][0] = (byte) (KEY_SHORT_ASCII + ascii.length - 1);
      System.arraycopy(ascii, 0, keys[i], 1, ascii.length);
    }
    return new SmileRecordEncoding(components, keys);
  }

  private static boolean isAscii(String text) {
    for (int i = 0; i < text.length(); i++) {
      if (text.charAt(i) >= 0x80) {
        return false;
      }
    }
    return true;
  }

  /**
   * The Smile document of {@code record} (not null), or null when a value needs Jackson's
   * generator. It is written into an array the size of the previous document of this type: values
   * of one type mostly encode to one size, and then the array is the result, with no scratch
   * buffer to look up per thread and no copy. (Adding the size up first costs a second call of
   * every accessor, which measured slower.)
   */
  byte[] encode(Object record) {
    Writer out = new Writer(new byte[lastSize]);
    out.bytes(HEADER);
    out.put(START_OBJECT);
    for (int i = 0; i < components.length; i++) {
      out.bytes(keys[i]);
      if (!components[i].writeSmile(out, record)) {
        return null;
      }
    }
    out.put(END_OBJECT);
    if (out.position == out.buffer.length) {
      return out.buffer;
    }
    lastSize = Math.min(out.position, MAX_GUESSED_SIZE);
    return Arrays.copyOf(out.buffer, out.position);
  }

  /**
   * The constructor arguments read from {@code bytes} over {@code defaults}, or null when the
   * document uses Smile beyond this subset (or is not an object, or is malformed).
   */
  Object[] decode(byte[] bytes, Object[] defaults) {
    Reader in = new Reader(bytes);
    if (!in.header() || in.next() != START_OBJECT) {
      return null;
    }
    Object[] arguments = defaults.clone();
    int expected = 0;
    for (int token = in.next(); token != END_OBJECT; token = in.next()) {
      int index = in.key(token, keys, expected);
      expected = index + 1;
      if (index == Reader.UNSUPPORTED) {
        return null;
      }
      Object value = in.value(index < 0 ? null : components[index]);
      if (value == Reader.UNSUPPORTED_VALUE) {
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

  /** Appends Smile to a growable buffer. */
  static final class Writer {
    private byte[] buffer;
    private int position;

    Writer(byte[] buffer) {
      this.buffer = buffer;
    }

    private void ensure(int more) {
      if (position + more > buffer.length) {
        buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, position + more));
      }
    }

    void put(int b) {
      ensure(1);
      buffer[position++] = (byte) b;
    }

    void bytes(byte[] bytes) {
      ensure(bytes.length);
      System.arraycopy(bytes, 0, buffer, position, bytes.length);
      position += bytes.length;
    }

    void nullValue() {
      put(NULL);
    }

    void bool(boolean value) {
      put(value ? TRUE : FALSE);
    }

    void number(long value) {
      if (value == (int) value) {
        long zigzag = (((int) value << 1) ^ ((int) value >> 31)) & 0xFFFF_FFFFL; // unsigned
        if (zigzag < 32) {
          put(SMALL_INT + (int) zigzag);
        } else {
          put(INT32);
          varint(zigzag);
        }
      } else {
        put(INT64);
        varint((value << 1) ^ (value >> 63));
      }
    }

    /** Smile's unsigned VInt: 7 bits per byte, big-endian, the last byte marked 0x80 and holding 6 bits. */
    private void varint(long unsigned) {
      ensure(10);
      int groups = 1;
      for (long rest = unsigned >>> 6; rest != 0; rest >>>= 7) {
        groups++;
      }
      for (int group = groups - 1; group > 0; group--) {
        buffer[position++] = (byte) ((unsigned >>> (6 + 7 * (group - 1))) & 0x7F);
      }
      buffer[position++] = (byte) (0x80 | (unsigned & 0x3F));
    }

    /** An ASCII string of at most 64 characters; false for any other. */
    boolean string(String value) {
      int length = value.length();
      if (length == 0) {
        put(EMPTY_STRING);
        return true;
      }
      if (length > MAX_SHORT_ASCII || !isAscii(value)) {
        return false;
      }
      ensure(length + 1);
      buffer[position++] = (byte) ((length <= 32 ? TINY_ASCII - 1 : SHORT_ASCII - 33) + length);
      for (int i = 0; i < length; i++) {
        buffer[position++] = (byte) value.charAt(i); // ASCII: one byte per char
      }
      return true;
    }

    void binary(byte[] value) {
      put(RAW_BINARY);
      varint(value.length);
      bytes(value);
    }
  }

  /** Reads the subset of Smile this encoding writes. */
  static final class Reader {
    static final int UNSUPPORTED = -2;
    static final Object UNSUPPORTED_VALUE = new Object();
    private final byte[] bytes;
    private int position;
    /** Set once a VInt ran past the end or past 10 bytes; the document then goes to Jackson. */
    private boolean varintMalformed;

    Reader(byte[] bytes) {
      this.bytes = bytes;
    }

    /** Skips a header when there is one; false for a header with shared names or values, which this subset lacks. */
    boolean header() {
      if (bytes.length >= 4 && bytes[0] == ':' && bytes[1] == ')' && bytes[2] == '\n') {
        position = 4;
        return (bytes[3] & 0xF3) == 0; // version 0, no shared names (0x01) or shared values (0x02)
      }
      return true;
    }

    int next() {
      return position < bytes.length ? bytes[position++] & 0xFF : -1;
    }

    boolean atEnd() {
      return position == bytes.length;
    }

    /**
     * The index of the component a key names, -1 for an unknown name, {@link #UNSUPPORTED} for
     * another kind of key. {@code expected} (the component after the previous one) is tried first:
     * this encoding, and databind, write components in order.
     */
    int key(int token, byte[][] keys, int expected) {
      if (token == KEY_EMPTY) {
        return -1;
      }
      if (token < KEY_SHORT_ASCII || token > KEY_SHORT_ASCII + MAX_SHORT_ASCII - 1) {
        return UNSUPPORTED;
      }
      int length = token - KEY_SHORT_ASCII + 1;
      if (position + length > bytes.length) {
        return UNSUPPORTED;
      }
      int start = position;
      position += length;
      if (expected < keys.length && isKey(keys[expected], start, length)) {
        return expected;
      }
      for (int i = 0; i < keys.length; i++) {
        if (isKey(keys[i], start, length)) {
          return i;
        }
      }
      return -1;
    }

    /** Whether the name at {@code start} is {@code key}'s; a plain loop, names being short. */
    private boolean isKey(byte[] key, int start, int length) {
      if (key.length != length + 1) {
        return false;
      }
      for (int i = 0; i < length; i++) {
        if (key[i + 1] != bytes[start + i]) {
          return false;
        }
      }
      return true;
    }

    /**
     * The next value as {@code component} takes it (null for a null token), skipped when {@code
     * component} is null; {@link #UNSUPPORTED_VALUE} when it is outside the subset or does not fit.
     */
    Object value(RecordComponentCodec component) {
      int token = next();
      if (token == NULL) {
        return null;
      }
      if (token == TRUE || token == FALSE) {
        return component == null || component.takesBoolean() ? Boolean.valueOf(token == TRUE) : UNSUPPORTED_VALUE;
      }
      if (token >= SMALL_INT && token < SMALL_INT + 32 || token == INT32 || token == INT64) {
        return number(token, component);
      }
      if (token == EMPTY_STRING || token >= TINY_ASCII && token < SMALL_INT) {
        return string(token, component);
      }
      if (token == RAW_BINARY) {
        return binary(component);
      }
      return UNSUPPORTED_VALUE;
    }

    private Object number(int token, RecordComponentCodec component) {
      long value;
      if (token >= SMALL_INT && token < SMALL_INT + 32) {
        int zigzag = token - SMALL_INT;
        value = (zigzag >>> 1) ^ -(zigzag & 1);
      } else {
        int start = position;
        long zigzag = varint();
        // An INT32 VInt may carry at most 32 bits; Jackson keeps only the low 32 of a longer one.
        if (varintMalformed || token == INT32 && (zigzag < 0 || zigzag > 0xFFFF_FFFFL)) {
          return UNSUPPORTED_VALUE;
        }
        // Writers put a value that fits 32 bits in an INT32; Jackson reads an INT64 VInt's first
        // four bytes without looking for its end, so a shorter one goes to Jackson to agree.
        if (token == INT64 && position - start < 5) {
          return UNSUPPORTED_VALUE;
        }
        value = (zigzag >>> 1) ^ -(zigzag & 1);
      }
      if (component == null) {
        return value;
      }
      return component.number(value);
    }

    /**
     * Reads a VInt. One that runs past the end or past 10 bytes sets {@link #varintMalformed}: no
     * return value can say so, since a 10-byte VInt may be any 64 bits, -1 included.
     */
    private long varint() {
      long value = 0;
      for (int i = 0; i < 10 && position < bytes.length; i++) {
        int b = bytes[position++] & 0xFF;
        if ((b & 0x80) != 0) {
          return (value << 6) | (b & 0x3F);
        }
        value = (value << 7) | b;
      }
      varintMalformed = true;
      return -1;
    }

    private Object string(int token, RecordComponentCodec component) {
      int length;
      boolean ascii = token < TINY_UNICODE;
      if (token == EMPTY_STRING) {
        length = 0;
      } else if (token < SHORT_ASCII) {
        length = token - TINY_ASCII + 1;
      } else if (token < TINY_UNICODE) {
        length = token - SHORT_ASCII + 33;
      } else if (token < SHORT_UNICODE) {
        length = token - TINY_UNICODE + 2;
      } else {
        length = token - SHORT_UNICODE + 34;
      }
      if (position + length > bytes.length || component != null && !component.takesString()) {
        return UNSUPPORTED_VALUE;
      }
      int start = position;
      position += length;
      // Malformed text (a byte over 0x7F in an ASCII token, bad UTF-8 in a Unicode one, even in
      // a field that is skipped) goes to Jackson, which refuses it as databind does, instead of
      // being read with replacement characters.
      String text = ascii ? ascii(start, length) : strictUtf8(start, length);
      if (text == null) {
        return UNSUPPORTED_VALUE;
      }
      return component == null ? null : text;
    }

    private String ascii(int start, int length) {
      for (int i = start; i < start + length; i++) {
        if (bytes[i] < 0) {
          return null;
        }
      }
      return new String(bytes, start, length, StandardCharsets.ISO_8859_1);
    }

    private String strictUtf8(int start, int length) {
      try {
        return StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT)
            .decode(ByteBuffer.wrap(bytes, start, length))
            .toString();
      } catch (CharacterCodingException e) {
        return null;
      }
    }

    private Object binary(RecordComponentCodec component) {
      long length = varint();
      // Compared with what is left, not position + length, which a length near 2^63 overflows.
      if (varintMalformed || length < 0 || length > bytes.length - position
          || component != null && !component.takesBytes()) {
        return UNSUPPORTED_VALUE;
      }
      int start = position;
      position += (int) length;
      return component == null ? null : Arrays.copyOfRange(bytes, start, position);
    }
  }
}
