package dev.tether;

/** The connection a session was pinned to was lost and replaced; the session's work must be retried. */
public class SessionLostException extends TetherException {
  public SessionLostException(String message) {
    super(message);
  }

  public SessionLostException(String message, Throwable cause) {
    super(message, cause);
  }
}
