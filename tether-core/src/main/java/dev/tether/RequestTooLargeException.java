package dev.tether;

import java.util.List;

/**
 * A request (or a batch of them) would make a frame larger than the server accepts, as its WELCOME
 * announced: it was never written, the connection stays open, and it is never retried, since every
 * server of the same configuration would refuse it too.
 */
public class RequestTooLargeException extends TetherException {
  public RequestTooLargeException(String message) {
    super(message);
  }

  /**
   * A copy of {@code original} that also lists the call's attempts (see {@link
   * TetherException#withAttempts}).
   */
  protected RequestTooLargeException(RequestTooLargeException original, List<Attempt> attempts) {
    super(original, attempts);
  }

  @Override
  public RequestTooLargeException withAttempts(List<Attempt> attempts) {
    return new RequestTooLargeException(this, attempts);
  }
}
