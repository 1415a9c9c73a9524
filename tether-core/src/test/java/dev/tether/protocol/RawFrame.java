package dev.tether.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;

/**
 * Builds frames byte by byte, including ones no encoder would produce, so tests can state the exact
 * malformation they feed.
 */
final class RawFrame {
  private final ByteBuf bytes = Unpooled.buffer();

  private RawFrame(int type, int flags, int requestId) {
    bytes.writeByte(type).writeByte(flags).writeInt(requestId);
  }

  static RawFrame of(FrameType type) {
    return new RawFrame(type.code(), 0, 0);
  }

  static RawFrame of(int type, int flags, int requestId) {
    return new RawFrame(type, flags, requestId);
  }

  RawFrame u8(int value) {
    bytes.writeByte(value);
    return this;
  }

  RawFrame u32(int value) {
    bytes.writeInt(value);
    return this;
  }

  RawFrame u64(long value) {
    bytes.writeLong(value);
    return this;
  }

  RawFrame varint(long value) {
    while ((value & ~0x7FL) != 0) {
      bytes.writeByte((int) (value & 0x7F) | 0x80);
      value >>>= 7;
    }
    bytes.writeByte((int) value);
    return this;
  }

  RawFrame string(String value) {
    byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
    return varint(utf8.length).raw(utf8);
  }

  RawFrame raw(int... values) {
    for (int value : values) {
      bytes.writeByte(value);
    }
    return this;
  }

  RawFrame raw(byte[] values) {
    bytes.writeBytes(values);
    return this;
  }

  /** A REQUEST payload up to, not including, the body. */
  RawFrame requestFields(String service, String operation) {
    return string(service).string(operation).varint(0).varint(0);
  }

  /** Type, flags, request id and payload: what the length field counts. */
  ByteBuf body() {
    return bytes.copy();
  }

  /** The whole frame, length field first. */
  byte[] withLength() {
    byte[] frame = new byte[4 + bytes.readableBytes()];
    Unpooled.wrappedBuffer(frame).setInt(0, bytes.readableBytes());
    bytes.getBytes(bytes.readerIndex(), frame, 4, bytes.readableBytes());
    return frame;
  }
}
