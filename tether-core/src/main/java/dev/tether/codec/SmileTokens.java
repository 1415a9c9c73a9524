package dev.tether.codec;

/**
 * The Smile tokens the hand-written record encoding writes and reads, from the format's
 * specification, in one place for {@link SmileWriter} and {@link SmileReader}.
 */
final class SmileTokens {
  /** Version 0, raw binary, no shared names or values; never written to. */
  static final byte[] HEADER = {':', ')', '\n', 0x04};

  static final int START_OBJECT = 0xFA;
  static final int END_OBJECT = 0xFB;
  static final int KEY_EMPTY = 0x20;
  static final int KEY_SHORT_ASCII = 0x80; // 0x80-0xBF: ASCII name of 1-64 bytes
  static final int EMPTY_STRING = 0x20;
  static final int NULL = 0x21;
  static final int FALSE = 0x22;
  static final int TRUE = 0x23;
  static final int INT32 = 0x24;
  static final int INT64 = 0x25;
  static final int TINY_ASCII = 0x40; // 0x40-0x5F: 1-32 bytes
  static final int SHORT_ASCII = 0x60; // 0x60-0x7F: 33-64 bytes
  static final int TINY_UNICODE = 0x80; // 0x80-0x9F: 2-33 bytes
  static final int SHORT_UNICODE = 0xA0; // 0xA0-0xBF: 34-65 bytes
  static final int SMALL_INT = 0xC0; // 0xC0-0xDF: zigzag -16..15
  static final int RAW_BINARY = 0xFD;

  /** The longest name or string written as one short ASCII token. */
  static final int MAX_SHORT_ASCII = 64;

  private SmileTokens() {}

  static boolean isAscii(String text) {
    for (int i = 0; i < text.length(); i++) {
      if (text.charAt(i) >= 0x80) {
        return false;
      }
    }
    return true;
  }
}
