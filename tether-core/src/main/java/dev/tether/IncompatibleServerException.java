package dev.tether;

import java.util.List;

/** No server satisfies the proxy's required server version range. */
public class IncompatibleServerException extends TetherException {
  public IncompatibleServerException(String message) {
    super(message);
  }

  public IncompatibleServerException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * A copy of {@code original} that also lists the call's attempts (see {@link
   * TetherException#withAttempts}).
   */
  protected IncompatibleServerException(
      IncompatibleServerException original, List<Attempt> attempts) {
    super(original, attempts);
  }

  @Override
  public IncompatibleServerException withAttempts(List<Attempt> attempts) {
    return new IncompatibleServerException(this, attempts);
  }
}
