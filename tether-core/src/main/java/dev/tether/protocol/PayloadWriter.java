package dev.tether.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.util.Map;

/**
 * Sizes and writes the primitive encodings of docs/protocol.md (varint, string, metadata) straight
 * into a {@link ByteBuf}. Callers have validated ranges: varints here are never negative.
 */
final class PayloadWriter {
  private PayloadWriter() {}

  static int varint32Size(int value) {
    // Each varint byte carries 7 bits; value | 1 gives zero a size of one byte.
    return (31 - Integer.numberOfLeadingZeros(value | 1)) / 7 + 1;
  }

  static int varint64Size(long value) {
    return (63 - Long.numberOfLeadingZeros(value | 1)) / 7 + 1;
  }

  static void writeVarint32(ByteBuf out, int value) {
    while ((value & ~0x7F) != 0) {
      out.writeByte(value & 0x7F | 0x80);
      value >>>= 7;
    }
    out.writeByte(value);
  }

  static void writeVarint64(ByteBuf out, long value) {
    while ((value & ~0x7FL) != 0) {
      out.writeByte((int) value & 0x7F | 0x80);
      value >>>= 7;
    }
    out.writeByte((int) value);
  }

  static int stringSize(String value) {
    int utf8Bytes = ByteBufUtil.utf8Bytes(value);
    return varint32Size(utf8Bytes) + utf8Bytes;
  }

  static void writeString(ByteBuf out, String value) {
    int utf8Bytes = ByteBufUtil.utf8Bytes(value);
    writeVarint32(out, utf8Bytes);
    // Reserving the exact count keeps an exactly sized buffer from growing to the 3-bytes-per-char
    // worst case that writeUtf8 would reserve.
    ByteBufUtil.reserveAndWriteUtf8(out, value, utf8Bytes);
  }

  static long metadataSize(Map<String, String> metadata) {
    if (metadata.isEmpty()) {
      return 1;
    }
    long size = varint32Size(metadata.size());
    for (Map.Entry<String, String> entry : metadata.entrySet()) {
      size += stringSize(entry.getKey()) + (long) stringSize(entry.getValue());
    }
    return size;
  }

  static void writeMetadata(ByteBuf out, Map<String, String> metadata) {
    writeVarint32(out, metadata.size());
    if (metadata.isEmpty()) {
      return;
    }
    for (Map.Entry<String, String> entry : metadata.entrySet()) {
      writeString(out, entry.getKey());
      writeString(out, entry.getValue());
    }
  }
}
