package dev.tether.protocol;

import java.util.Map;

/**
 * The answer to a twoway request.
 *
 * @param metadata string headers; for REMOTE_ERROR it carries {@link #ERROR_TYPE} and
 *     {@link #ERROR_MESSAGE}
 * @param body the encoded result when the status is OK
 */
public record Response(int requestId, Status status, Map<String, String> metadata, byte[] body)
    implements Frame {

  /** Metadata key naming the remote exception's class. */
  public static final String ERROR_TYPE = "error-type";
  /** Metadata key holding the remote exception's message. */
  public static final String ERROR_MESSAGE = "error-message";

  @Override
  public FrameType type() {
    return FrameType.RESPONSE;
  }
}
