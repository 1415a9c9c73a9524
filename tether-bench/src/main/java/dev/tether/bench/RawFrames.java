package dev.tether.bench;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.CorruptedFrameException;

/**
 * The raw-Netty system's wire format, the same both ways: {@code u32 length | u32 requestId |
 * payload}, where {@code length} counts the bytes after itself (4 + the payload's length).
 */
final class RawFrames {

  /** Bytes of the length field. */
  static final int LENGTH_FIELD_BYTES = 4;

  /** Bytes of the request id, the first thing the length counts. */
  static final int REQUEST_ID_BYTES = 4;

  /** Frames longer than this are refused as corrupt. */
  static final int MAX_PAYLOAD_BYTES = 16 * 1024 * 1024;

  private RawFrames() {}

  /** Bytes of a whole frame carrying {@code payloadBytes}. */
  static int frameBytes(int payloadBytes) {
    return LENGTH_FIELD_BYTES + REQUEST_ID_BYTES + payloadBytes;
  }

  /** Appends one frame to {@code out}. */
  static void encode(ByteBuf out, int requestId, byte[] payload) {
    out.writeInt(REQUEST_ID_BYTES + payload.length).writeInt(requestId).writeBytes(payload);
  }

  /**
   * Whether {@code in} holds a whole frame at its reader index; reads nothing.
   *
   * @throws CorruptedFrameException when the length field is impossible
   */
  static boolean hasCompleteFrame(ByteBuf in) {
    int readable = in.readableBytes();
    if (readable < LENGTH_FIELD_BYTES) {
      return false;
    }
    int length = in.getInt(in.readerIndex());
    if (length < REQUEST_ID_BYTES || length > REQUEST_ID_BYTES + MAX_PAYLOAD_BYTES) {
      throw new CorruptedFrameException(
          "frame length "
              + length
              + " outside [4, "
              + (REQUEST_ID_BYTES + MAX_PAYLOAD_BYTES)
              + "]");
    }
    return readable - LENGTH_FIELD_BYTES >= length;
  }

  /**
   * Reads the length field of the complete frame at {@code in}'s reader index and returns the
   * payload's length.
   */
  static int readPayloadLength(ByteBuf in) {
    return in.readInt() - REQUEST_ID_BYTES;
  }
}
