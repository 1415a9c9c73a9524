package dev.tether;

import java.util.List;

/**
 * The server proved it did not execute the request (REFUSED, or above a GOAWAY's last accepted id).
 */
public class RequestRefusedException extends TetherException {
  public RequestRefusedException(String message) {
    super(message);
  }

  public RequestRefusedException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * A copy of {@code original} that also lists the call's attempts (see {@link
   * TetherException#withAttempts}).
   */
  protected RequestRefusedException(RequestRefusedException original, List<Attempt> attempts) {
    super(original, attempts);
  }

  @Override
  public RequestRefusedException withAttempts(List<Attempt> attempts) {
    return new RequestRefusedException(this, attempts);
  }
}
