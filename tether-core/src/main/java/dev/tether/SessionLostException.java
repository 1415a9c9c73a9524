package dev.tether;

import java.util.List;

/**
 * The connection a session was pinned to was lost and replaced; the session's work must be retried.
 */
public class SessionLostException extends TetherException {
  public SessionLostException(String message) {
    super(message);
  }

  public SessionLostException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * A copy of {@code original} that also lists the call's attempts (see {@link
   * TetherException#withAttempts}).
   */
  protected SessionLostException(SessionLostException original, List<Attempt> attempts) {
    super(original, attempts);
  }

  @Override
  public SessionLostException withAttempts(List<Attempt> attempts) {
    return new SessionLostException(this, attempts);
  }
}
