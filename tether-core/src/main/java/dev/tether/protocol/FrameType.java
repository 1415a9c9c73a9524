package dev.tether.protocol;

/** The frame types of protocol 1.x and their wire codes. */
public enum FrameType {
  /** Client's first frame after its preface. */
  HELLO(1),
  /** Server's answer to HELLO: identity, limits, topology. */
  WELCOME(2),
  /** A call. */
  REQUEST(3),
  /** The answer to a twoway REQUEST with the same request id. */
  RESPONSE(4),
  /** The client no longer wants the answer to a request. */
  CANCEL(5),
  /** Liveness probe; the peer answers PONG with the same data. */
  PING(6),
  /** Answer to PING. */
  PONG(7),
  /** The sender will accept no request above {@code lastAcceptedId} and is closing. */
  GOAWAY(8),
  /** Several oneway requests sent together. */
  BATCH(9),
  /** Protocol 1.1: the server's cluster view changed; replaces the one WELCOME announced. */
  TOPOLOGY(10),
  /** Protocol 1.3: one item of a stream, in either direction, with its position. */
  STREAM_ITEM(11),
  /** Protocol 1.3: what the receiver of a stream direction got, and how far the sender may go. */
  STREAM_CREDIT(12),
  /** Protocol 1.3: a stream direction ended: completed, failed, or lost. */
  STREAM_END(13);

  private static final FrameType[] BY_CODE = new FrameType[16];

  static {
    for (FrameType t : values()) {
      BY_CODE[t.code] = t;
    }
  }

  private final int code;

  FrameType(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  /** The type for a wire code, or null when the code is unknown. */
  public static FrameType fromCode(int code) {
    return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
  }
}
