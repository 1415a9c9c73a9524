package dev.tether;

import java.util.List;

/** The service has no operation of the requested name. */
public class OperationNotFoundException extends TetherException {
  public OperationNotFoundException(String message) {
    super(message);
  }

  public OperationNotFoundException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * A copy of {@code original} that also lists the call's attempts (see {@link
   * TetherException#withAttempts}).
   */
  protected OperationNotFoundException(
      OperationNotFoundException original, List<Attempt> attempts) {
    super(original, attempts);
  }

  @Override
  public OperationNotFoundException withAttempts(List<Attempt> attempts) {
    return new OperationNotFoundException(this, attempts);
  }
}
