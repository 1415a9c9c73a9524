package dev.tether.protocol;

import java.util.Map;

/**
 * The answer to a twoway request.
 *
 * @param flags {@link #COMPRESSED} or 0. Decoded: the body travelled compressed (it is given here
 *     decompressed). To encode: the server asks for the body to be compressed, which the connection
 *     does only when compression was negotiated and the body is over the threshold
 * @param metadata string headers; for REMOTE_ERROR it carries {@link #ERROR_TYPE} and {@link
 *     #ERROR_MESSAGE}
 * @param body the encoded result when the status is OK
 */
public record Response(
    int requestId, int flags, Status status, Map<String, String> metadata, byte[] body)
    implements Frame {

  /** The body is compressed (protocol 1.1); the same bit as {@link Request#COMPRESSED}. */
  public static final int COMPRESSED = 0x04;

  /** An answer whose body travels as it is. */
  public Response(int requestId, Status status, Map<String, String> metadata, byte[] body) {
    this(requestId, 0, status, metadata, body);
  }

  /** Metadata key naming the remote exception's class. */
  public static final String ERROR_TYPE = "error-type";

  /** Metadata key holding the remote exception's message. */
  public static final String ERROR_MESSAGE = "error-message";

  @Override
  public FrameType type() {
    return FrameType.RESPONSE;
  }
}
