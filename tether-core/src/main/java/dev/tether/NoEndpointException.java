package dev.tether;

import java.util.List;

/** Endpoint selection left no usable endpoint; the message names the step that emptied the list. */
public class NoEndpointException extends TetherException {
  public NoEndpointException(String message) {
    super(message);
  }

  public NoEndpointException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * A copy of {@code original} that also lists the call's attempts (see {@link
   * TetherException#withAttempts}).
   */
  protected NoEndpointException(NoEndpointException original, List<Attempt> attempts) {
    super(original, attempts);
  }

  @Override
  public NoEndpointException withAttempts(List<Attempt> attempts) {
    return new NoEndpointException(this, attempts);
  }
}
