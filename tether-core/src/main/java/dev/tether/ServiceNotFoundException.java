package dev.tether;

import java.util.List;

/** The server has no service of the requested name. */
public class ServiceNotFoundException extends TetherException {
  public ServiceNotFoundException(String message) {
    super(message);
  }

  public ServiceNotFoundException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * A copy of {@code original} that also lists the call's attempts (see {@link
   * TetherException#withAttempts}).
   */
  protected ServiceNotFoundException(ServiceNotFoundException original, List<Attempt> attempts) {
    super(original, attempts);
  }

  @Override
  public ServiceNotFoundException withAttempts(List<Attempt> attempts) {
    return new ServiceNotFoundException(this, attempts);
  }
}
