package dev.tether;

import java.util.List;

/** No endpoint of the proxy accepted a connection; the message lists every endpoint tried. */
public class ConnectFailedException extends TetherException {
  public ConnectFailedException(String message) {
    super(message);
  }

  public ConnectFailedException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * A copy of {@code original} that also lists the call's attempts (see {@link
   * TetherException#withAttempts}).
   */
  protected ConnectFailedException(ConnectFailedException original, List<Attempt> attempts) {
    super(original, attempts);
  }

  @Override
  public ConnectFailedException withAttempts(List<Attempt> attempts) {
    return new ConnectFailedException(this, attempts);
  }
}
