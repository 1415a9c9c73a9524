package dev.tether.protocol;

import java.util.Map;

/**
 * A call: which service and operation, how it may be treated, and its argument bytes.
 *
 * @param requestId the id its RESPONSE will carry; 0 for oneway requests is allowed
 * @param flags a combination of {@link #ONEWAY}, {@link #IDEMPOTENT}, {@link #COMPRESSED}
 * @param deadlineMillis milliseconds left before the caller gives up; 0 means no deadline
 * @param metadata string headers; empty map when none
 * @param body the encoded arguments
 */
public record Request(
    int requestId,
    int flags,
    String service,
    String operation,
    long deadlineMillis,
    Map<String, String> metadata,
    byte[] body)
    implements Frame {

  /** No RESPONSE is expected. */
  public static final int ONEWAY = 0x01;

  /** Running the request twice is harmless. */
  public static final int IDEMPOTENT = 0x02;

  /** The body is compressed. */
  public static final int COMPRESSED = 0x04;

  /**
   * Protocol 1.3: opens a stream; its id is the request id, its OK answer carries the resume token.
   */
  public static final int STREAM = 0x08;

  /** Protocol 1.3, with {@link #STREAM}: the client sends items too (a bidirectional stream). */
  public static final int BIDI = 0x10;

  /**
   * Protocol 1.3, with {@link #STREAM}: resumes a stream a lost connection carried; the body is
   * {@code token(16) | received varint64 | limit varint64}, the OK answer {@code received | limit}.
   */
  public static final int RESUME = 0x20;

  /**
   * The operation a ping sends: the server answers OK when the service exists and runs no service
   * code. Not a Java identifier, so no typed operation can collide with it.
   */
  public static final String PING_OPERATION = "tether.ping";

  @Override
  public FrameType type() {
    return FrameType.REQUEST;
  }

  public boolean isOneway() {
    return (flags & ONEWAY) != 0;
  }

  public boolean isIdempotent() {
    return (flags & IDEMPOTENT) != 0;
  }

  /** True when this request opens or resumes a stream. */
  public boolean isStream() {
    return (flags & STREAM) != 0;
  }
}
