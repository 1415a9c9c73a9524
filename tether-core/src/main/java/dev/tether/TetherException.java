package dev.tether;

import java.util.List;

/**
 * Base of every exception Tether raises; unchecked and immutable. The message says what was tried,
 * and {@link #attempts()} lists each failed attempt of the call it ended: the call hands out a copy
 * made with {@link #withAttempts}, so one failure shared by several calls (a connect failure) never
 * carries another call's history.
 */
public class TetherException extends RuntimeException {
  private final List<Attempt> attempts;

  public TetherException(String message) {
    super(message);
    this.attempts = List.of();
  }

  public TetherException(String message, Throwable cause) {
    super(message, cause);
    this.attempts = List.of();
  }

  /**
   * A copy of {@code original} with {@code attempts}: the same message, cause, stack trace and
   * suppressed exceptions. Each subclass has one, which {@link #withAttempts} calls.
   */
  protected TetherException(TetherException original, List<Attempt> attempts) {
    super(original.getMessage(), original.getCause());
    this.attempts = List.copyOf(attempts);
    setStackTrace(original.getStackTrace());
    for (Throwable suppressed : original.getSuppressed()) {
      addSuppressed(suppressed);
    }
  }

  /** Every failed attempt of the call, oldest first; empty when the exception ended no call. */
  public List<Attempt> attempts() {
    return attempts;
  }

  /**
   * A copy of this exception, of the same class, that lists {@code recorded} as the call's
   * attempts; this exception is unchanged. A subclass overrides it with its own copy constructor so
   * that the copy keeps its type and its fields.
   */
  public TetherException withAttempts(List<Attempt> recorded) {
    return new TetherException(this, recorded);
  }
}
