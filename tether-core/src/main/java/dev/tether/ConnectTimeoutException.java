package dev.tether;

import java.util.List;

/** A connection (TCP connect and handshake) did not complete within the connect timeout. */
public class ConnectTimeoutException extends TetherException {
  public ConnectTimeoutException(String message) {
    super(message);
  }

  public ConnectTimeoutException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * A copy of {@code original} that also lists the call's attempts (see {@link
   * TetherException#withAttempts}).
   */
  protected ConnectTimeoutException(ConnectTimeoutException original, List<Attempt> attempts) {
    super(original, attempts);
  }

  @Override
  public ConnectTimeoutException withAttempts(List<Attempt> attempts) {
    return new ConnectTimeoutException(this, attempts);
  }
}
