package dev.tether.protocol;

import static dev.tether.protocol.PayloadReader.readVarint64;
import static dev.tether.protocol.PayloadWriter.varint64Size;
import static dev.tether.protocol.PayloadWriter.writeVarint64;

import dev.tether.ProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * The bodies of a stream's resumption (protocol 1.3, docs/protocol.md 3.9): the REQUEST with the
 * RESUME flag carries {@code token(16) | received varint64 | limit varint64} (what the client holds
 * of the server's items and how far the server may go), and its OK answer {@code received | limit}
 * for the client's own items.
 *
 * @param token the 16 bytes the opening's OK answer carried; empty in an answer
 */
public record StreamResume(byte[] token, long received, long limit) {
  public static final int TOKEN_BYTES = 16;

  /** The RESUME request's body. */
  public byte[] encodeRequest() {
    ByteBuf out = Unpooled.buffer(TOKEN_BYTES + varint64Size(received) + varint64Size(limit));
    out.writeBytes(token);
    writeVarint64(out, received);
    writeVarint64(out, limit);
    return out.array();
  }

  /** The OK answer's body. */
  public byte[] encodeAnswer() {
    ByteBuf out = Unpooled.buffer(varint64Size(received) + varint64Size(limit));
    writeVarint64(out, received);
    writeVarint64(out, limit);
    return out.array();
  }

  /**
   * @throws ProtocolException naming the field when {@code body} is not a RESUME request's body
   */
  public static StreamResume decodeRequest(byte[] body) {
    if (body.length < TOKEN_BYTES) {
      throw new ProtocolException("RESUME.token: " + body.length + " bytes, shorter than 16");
    }
    ByteBuf in = Unpooled.wrappedBuffer(body);
    byte[] token = new byte[TOKEN_BYTES];
    in.readBytes(token);
    return decodePositions(in, token, "RESUME");
  }

  /**
   * @throws ProtocolException naming the field when {@code body} is not a RESUME answer's body
   */
  public static StreamResume decodeAnswer(byte[] body) {
    return decodePositions(Unpooled.wrappedBuffer(body), new byte[0], "RESUMED");
  }

  private static StreamResume decodePositions(ByteBuf in, byte[] token, String what) {
    long received = readVarint64(in, what + ".received");
    long limit = readVarint64(in, what + ".limit");
    if (received < 0 || limit < 0) {
      throw new ProtocolException(what + ": positions must be below 2^63");
    }
    if (in.isReadable()) {
      throw new ProtocolException(what + ": " + in.readableBytes() + " bytes after the positions");
    }
    return new StreamResume(token, received, limit);
  }
}
