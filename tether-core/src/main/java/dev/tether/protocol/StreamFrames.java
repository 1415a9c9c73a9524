package dev.tether.protocol;

import static dev.tether.protocol.PayloadReader.readMetadata;
import static dev.tether.protocol.PayloadReader.readRest;
import static dev.tether.protocol.PayloadReader.readU8;
import static dev.tether.protocol.PayloadReader.readVarint64;
import static dev.tether.protocol.PayloadReader.requireEnd;
import static dev.tether.protocol.PayloadWriter.metadataSize;
import static dev.tether.protocol.PayloadWriter.varint64Size;
import static dev.tether.protocol.PayloadWriter.writeMetadata;
import static dev.tether.protocol.PayloadWriter.writeVarint64;

import dev.tether.ProtocolException;
import io.netty.buffer.ByteBuf;

/**
 * The payloads of protocol 1.3's stream frames (docs/protocol.md 3.9), for {@link FrameWriter} and
 * {@link FrameReader}: STREAM_ITEM {@code position varint64 | body}, STREAM_CREDIT {@code received
 * varint64 | limit varint64}, STREAM_END {@code status u8 | finalPosition varint64 | metadata}.
 */
final class StreamFrames {
  private StreamFrames() {}

  static long payloadSize(Frame frame) {
    if (frame instanceof StreamItem item) {
      return varint64Size(item.position()) + item.body().length;
    }
    if (frame instanceof StreamCredit credit) {
      return varint64Size(credit.received()) + varint64Size(credit.limit());
    }
    StreamEnd end = (StreamEnd) frame;
    return 1 + varint64Size(end.finalPosition()) + metadataSize(end.metadata());
  }

  static void writePayload(Frame frame, ByteBuf out) {
    if (frame instanceof StreamItem item) {
      writeVarint64(out, requirePositive(item.position(), "STREAM_ITEM.position"));
      out.writeBytes(item.body());
    } else if (frame instanceof StreamCredit credit) {
      writeVarint64(out, requireNonNegative(credit.received(), "STREAM_CREDIT.received"));
      writeVarint64(out, requireNonNegative(credit.limit(), "STREAM_CREDIT.limit"));
    } else {
      StreamEnd end = (StreamEnd) frame;
      out.writeByte(end.status().code());
      writeVarint64(out, requireNonNegative(end.finalPosition(), "STREAM_END.finalPosition"));
      writeMetadata(out, end.metadata());
    }
  }

  static StreamItem readItem(ByteBuf in, int streamId) {
    long position = readVarint64(in, "STREAM_ITEM.position");
    if (position <= 0) {
      throw new ProtocolException("STREAM_ITEM.position: must be at least 1, got " + position);
    }
    return new StreamItem(streamId, position, readRest(in));
  }

  static StreamCredit readCredit(ByteBuf in, int streamId) {
    long received = readNonNegative(in, "STREAM_CREDIT.received");
    long limit = readNonNegative(in, "STREAM_CREDIT.limit");
    requireEnd(in, FrameType.STREAM_CREDIT);
    return new StreamCredit(streamId, received, limit);
  }

  static StreamEnd readEnd(ByteBuf in, int streamId) {
    int code = readU8(in, "STREAM_END.status");
    Status status = Status.fromCode(code);
    if (status == null) {
      throw new ProtocolException("STREAM_END.status: unknown status code " + code);
    }
    long finalPosition = readNonNegative(in, "STREAM_END.finalPosition");
    var metadata = readMetadata(in, "STREAM_END.metadata");
    requireEnd(in, FrameType.STREAM_END);
    return new StreamEnd(streamId, status, finalPosition, metadata);
  }

  /** A varint64 above 2^63-1 reads as negative: no position is that large. */
  private static long readNonNegative(ByteBuf in, String field) {
    long value = readVarint64(in, field);
    if (value < 0) {
      throw new ProtocolException(
          field + ": " + Long.toUnsignedString(value) + " is outside 0..2^63-1");
    }
    return value;
  }

  private static long requirePositive(long value, String field) {
    if (value <= 0) {
      throw new IllegalArgumentException(field + " must be at least 1: " + value);
    }
    return value;
  }

  private static long requireNonNegative(long value, String field) {
    if (value < 0) {
      throw new IllegalArgumentException(field + " must not be negative: " + value);
    }
    return value;
  }
}
