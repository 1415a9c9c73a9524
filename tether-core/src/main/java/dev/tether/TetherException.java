package dev.tether;

import java.util.List;

/**
 * Base of every exception Tether raises; unchecked. The message says what was tried, and
 * {@link #attempts()} lists each failed attempt of the call it ended.
 */
public class TetherException extends RuntimeException {
  private List<Attempt> attempts = List.of();

  public TetherException(String message) {
    super(message);
  }

  public TetherException(String message, Throwable cause) {
    super(message, cause);
  }

  /** Every failed attempt of the call, oldest first; empty when the exception ended no call. */
  public List<Attempt> attempts() {
    return attempts;
  }

  /** Attaches the call's attempts; returns this exception. */
  public TetherException withAttempts(List<Attempt> recorded) {
    this.attempts = List.copyOf(recorded);
    return this;
  }
}
