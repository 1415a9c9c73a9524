package dev.tether.protocol;

/**
 * One decoded protocol frame. Every frame on a stream transport travels as {@code length u32 | type
 * u8 | flags u8 | requestId u32 | payload}; see docs/protocol.md.
 */
public sealed interface Frame
    permits Hello,
        Welcome,
        Request,
        Response,
        Cancel,
        Ping,
        Pong,
        GoAway,
        Batch,
        TopologyUpdate,
        StreamItem,
        StreamCredit,
        StreamEnd {

  /** The frame's type, which decides its payload layout. */
  FrameType type();

  /** The request id the frame refers to, or 0 for connection-level frames. */
  default int requestId() {
    return 0;
  }
}
