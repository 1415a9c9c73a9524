package dev.tether.protocol;

/**
 * The fixed part of every v1 frame, shared by {@link FrameWriter} and {@link FrameReader}: {@code
 * length u32 | type u8 | flags u8 | requestId u32}, then the payload ({@code docs/protocol.md} has
 * the layout byte by byte), and the flag bits each frame type may carry.
 */
public final class FrameHeader {
  /** Bytes of the length field that opens every frame. */
  public static final int LENGTH_FIELD_LENGTH = 4;

  /** Bytes counted by the length field before the payload: type, flags, request id. */
  public static final int HEADER_LENGTH = 6;

  /** Every flag bit a REQUEST may carry; the rest are reserved. */
  public static final int REQUEST_FLAGS =
      Request.ONEWAY
          | Request.IDEMPOTENT
          | Request.COMPRESSED
          | Request.STREAM
          | Request.BIDI
          | Request.RESUME;

  /** Every flag bit a RESPONSE may carry (protocol 1.1); the rest are reserved. */
  public static final int RESPONSE_FLAGS = Response.COMPRESSED;

  private FrameHeader() {}
}
