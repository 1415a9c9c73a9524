package dev.tether.codec;

import static dev.tether.codec.SmileTokens.EMPTY_STRING;
import static dev.tether.codec.SmileTokens.FALSE;
import static dev.tether.codec.SmileTokens.INT32;
import static dev.tether.codec.SmileTokens.INT64;
import static dev.tether.codec.SmileTokens.KEY_EMPTY;
import static dev.tether.codec.SmileTokens.KEY_SHORT_ASCII;
import static dev.tether.codec.SmileTokens.MAX_SHORT_ASCII;
import static dev.tether.codec.SmileTokens.NULL;
import static dev.tether.codec.SmileTokens.RAW_BINARY;
import static dev.tether.codec.SmileTokens.SHORT_ASCII;
import static dev.tether.codec.SmileTokens.SHORT_UNICODE;
import static dev.tether.codec.SmileTokens.SMALL_INT;
import static dev.tether.codec.SmileTokens.TINY_ASCII;
import static dev.tether.codec.SmileTokens.TINY_UNICODE;
import static dev.tether.codec.SmileTokens.TRUE;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Reads the subset of Smile the hand-written record encoding writes, one document per instance:
 * keys by component, scalar values as each component takes them. Anything outside the subset is
 * reported ({@link #UNSUPPORTED}, {@link #UNSUPPORTED_VALUE}) for Jackson to read instead.
 */
final class SmileReader {
  static final int UNSUPPORTED = -2;
  static final Object UNSUPPORTED_VALUE = new Object();
  private final byte[] bytes;
  private int position;

  /** Set once a VInt ran past the end or past 10 bytes; the document then goes to Jackson. */
  private boolean varintMalformed;

  SmileReader(byte[] bytes) {
    this.bytes = bytes;
  }

  /**
   * Skips a header when there is one; false for a header with shared names or values, which this
   * subset lacks.
   */
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
      return component == null || component.takesBoolean()
          ? Boolean.valueOf(token == TRUE)
          : UNSUPPORTED_VALUE;
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
      return StandardCharsets.UTF_8
          .newDecoder()
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
    if (varintMalformed
        || length < 0
        || length > bytes.length - position
        || component != null && !component.takesBytes()) {
      return UNSUPPORTED_VALUE;
    }
    int start = position;
    position += (int) length;
    return component == null ? null : Arrays.copyOfRange(bytes, start, position);
  }
}
