package dev.tether.protocol;

import dev.tether.ProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.util.ByteProcessor;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads the primitive encodings of docs/protocol.md from one frame's bytes. Every read checks what
 * is left of the frame first and throws {@link ProtocolException} naming the field, so a hostile
 * frame never causes an out-of-bounds read or an allocation larger than itself.
 */
final class PayloadReader {
  static final byte[] NO_BYTES = new byte[0];

  private static final ByteProcessor IS_ASCII = value -> value >= 0;
  private static final ThreadLocal<CharsetDecoder> STRICT_UTF8 =
      ThreadLocal.withInitial(PayloadReader::newStrictUtf8Decoder);
  // The smallest metadata entry is two empty strings.
  private static final int MIN_METADATA_ENTRY = 2;

  private PayloadReader() {}

  static int readU8(ByteBuf in, String field) {
    require(in, 1, field);
    return in.readUnsignedByte();
  }

  static int readU32(ByteBuf in, String field) {
    require(in, 4, field);
    return in.readInt();
  }

  static long readU64(ByteBuf in, String field) {
    require(in, 8, field);
    return in.readLong();
  }

  /** An unsigned LEB128 value of at most 5 bytes that fits a non-negative int. */
  static int readVarint32(ByteBuf in, String field) {
    int value = 0;
    for (int shift = 0; shift < 28; shift += 7) {
      int b = readVarintByte(in, field);
      value |= (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return value;
      }
    }
    int last = readVarintByte(in, field);
    if ((last & 0x80) != 0) {
      throw malformed(field, "varint is longer than 5 bytes");
    }
    if (last > 0x07) {
      throw malformed(field, "varint exceeds 2^31-1");
    }
    return value | last << 28;
  }

  /** An unsigned LEB128 value of at most 10 bytes that fits a non-negative long. */
  static long readVarint64(ByteBuf in, String field) {
    long value = 0;
    for (int shift = 0; shift < 63; shift += 7) {
      int b = readVarintByte(in, field);
      value |= (long) (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return value;
      }
    }
    int last = readVarintByte(in, field);
    if ((last & 0x80) != 0) {
      throw malformed(field, "varint is longer than 10 bytes");
    }
    if (last != 0) {
      throw malformed(field, "varint exceeds 2^63-1");
    }
    return value;
  }

  /** A varint counting items of at least {@code minItemBytes} each, checked against the frame. */
  static int readCount(ByteBuf in, int minItemBytes, String field) {
    int count = readVarint32(in, field);
    if (count > in.readableBytes() / minItemBytes) {
      throw malformed(
          field, "count " + count + " cannot fit in the " + in.readableBytes() + " bytes left");
    }
    return count;
  }

  static String readString(ByteBuf in, String field) {
    return readName(in, field, null);
  }

  /** {@link #readString}, served from {@code names} when it holds the string (null: no cache). */
  static String readName(ByteBuf in, String field, NameCache names) {
    int length = readVarint32(in, field);
    if (length > in.readableBytes()) {
      throw malformed(
          field,
          "string of " + length + " bytes overruns the frame (" + in.readableBytes() + " left)");
    }
    String value =
        names == null
            ? decodeUtf8(in, in.readerIndex(), length, field)
            : names.lookup(in, in.readerIndex(), length, field);
    in.skipBytes(length);
    return value;
  }

  static Map<String, String> readMetadata(ByteBuf in, String field) {
    int count = readCount(in, MIN_METADATA_ENTRY, field);
    if (count == 0) {
      return Map.of();
    }
    // Insertion order kept so that re-encoding a decoded frame gives the same bytes.
    Map<String, String> metadata = new LinkedHashMap<>();
    for (int i = 0; i < count; i++) {
      String key = readString(in, field);
      String value = readString(in, field);
      if (metadata.putIfAbsent(key, value) != null) {
        throw malformed(field, "entry " + i + " repeats an earlier key");
      }
    }
    return Collections.unmodifiableMap(metadata);
  }

  static byte[] readRest(ByteBuf in) {
    int length = in.readableBytes();
    if (length == 0) {
      return NO_BYTES;
    }
    byte[] bytes = new byte[length];
    in.readBytes(bytes);
    return bytes;
  }

  static void requireEnd(ByteBuf in, FrameType type) {
    if (in.isReadable()) {
      throw new ProtocolException(
          type + ": " + in.readableBytes() + " trailing bytes after the payload");
    }
  }

  static ProtocolException malformed(String field, String problem) {
    return new ProtocolException(field + ": " + problem);
  }

  private static void require(ByteBuf in, int bytes, String field) {
    if (in.readableBytes() < bytes) {
      throw malformed(
          field, "needs " + bytes + " bytes but the frame has " + in.readableBytes() + " left");
    }
  }

  private static int readVarintByte(ByteBuf in, String field) {
    if (!in.isReadable()) {
      throw malformed(field, "varint is cut off by the end of the frame");
    }
    return in.readUnsignedByte();
  }

  static String decodeUtf8(ByteBuf in, int index, int length, String field) {
    if (length == 0) {
      return "";
    }
    // Names and metadata are nearly always ASCII, a subset of UTF-8 that needs no validation.
    if (in.forEachByte(index, length, IS_ASCII) == -1) {
      return in.toString(index, length, StandardCharsets.US_ASCII);
    }
    try {
      return STRICT_UTF8.get().decode(in.nioBuffer(index, length)).toString();
    } catch (CharacterCodingException e) {
      throw new ProtocolException(field + ": string is not valid UTF-8", e);
    }
  }

  private static CharsetDecoder newStrictUtf8Decoder() {
    return StandardCharsets.UTF_8
        .newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
  }
}
