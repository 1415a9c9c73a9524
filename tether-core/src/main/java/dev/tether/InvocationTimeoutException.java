package dev.tether;

import java.util.List;

/** The call's invocation timeout passed without an answer; the connection stays open. */
public class InvocationTimeoutException extends TetherException {
  public InvocationTimeoutException(String message) {
    super(message);
  }

  public InvocationTimeoutException(String message, Throwable cause) {
    super(message, cause);
  }

  /** A copy of {@code original} that also lists the call's attempts (see {@link TetherException#withAttempts}). */
  protected InvocationTimeoutException(InvocationTimeoutException original, List<Attempt> attempts) {
    super(original, attempts);
  }

  @Override
  public InvocationTimeoutException withAttempts(List<Attempt> attempts) {
    return new InvocationTimeoutException(this, attempts);
  }
}
