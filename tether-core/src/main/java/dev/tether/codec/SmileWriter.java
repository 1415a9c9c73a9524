package dev.tether.codec;

import static dev.tether.codec.SmileTokens.EMPTY_STRING;
import static dev.tether.codec.SmileTokens.FALSE;
import static dev.tether.codec.SmileTokens.INT32;
import static dev.tether.codec.SmileTokens.INT64;
import static dev.tether.codec.SmileTokens.MAX_SHORT_ASCII;
import static dev.tether.codec.SmileTokens.NULL;
import static dev.tether.codec.SmileTokens.RAW_BINARY;
import static dev.tether.codec.SmileTokens.SHORT_ASCII;
import static dev.tether.codec.SmileTokens.SMALL_INT;
import static dev.tether.codec.SmileTokens.TINY_ASCII;
import static dev.tether.codec.SmileTokens.TRUE;
import static dev.tether.codec.SmileTokens.isAscii;

import java.util.Arrays;

/**
 * Appends the Smile values of the hand-written record encoding to a growable array: what {@link
 * RecordComponentCodec#writeSmile} writes each scalar component with.
 */
final class SmileWriter {
  private byte[] buffer;
  private int position;

  SmileWriter(byte[] buffer) {
    this.buffer = buffer;
  }

  /** True when the document filled its first array exactly: that array is the result. */
  boolean isFull() {
    return position == buffer.length;
  }

  /** The array written into, whole; the document when {@link #isFull()}. */
  byte[] array() {
    return buffer;
  }

  /** The bytes written so far. */
  int size() {
    return position;
  }

  /** A copy of the bytes written so far. */
  byte[] toArray() {
    return Arrays.copyOf(buffer, position);
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

  /**
   * Smile's unsigned VInt: 7 bits per byte, big-endian, the last byte marked 0x80 and holding 6
   * bits.
   */
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
