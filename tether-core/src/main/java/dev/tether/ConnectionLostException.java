package dev.tether;

import java.util.List;

/**
 * The connection carrying a call broke before its answer arrived. {@link #mayHaveExecuted()} is
 * true when the request had been sent, so the server may have run it.
 */
public class ConnectionLostException extends TetherException {
  private final boolean mayHaveExecuted;

  public ConnectionLostException(String message, boolean mayHaveExecuted) {
    super(message);
    this.mayHaveExecuted = mayHaveExecuted;
  }

  public ConnectionLostException(String message, boolean mayHaveExecuted, Throwable cause) {
    super(message, cause);
    this.mayHaveExecuted = mayHaveExecuted;
  }

  /** True when the whole request reached the connection before it broke. */
  public boolean mayHaveExecuted() {
    return mayHaveExecuted;
  }

  /**
   * A copy of {@code original} that also lists the call's attempts (see {@link
   * TetherException#withAttempts}).
   */
  protected ConnectionLostException(ConnectionLostException original, List<Attempt> attempts) {
    super(original, attempts);
    this.mayHaveExecuted = original.mayHaveExecuted;
  }

  @Override
  public ConnectionLostException withAttempts(List<Attempt> attempts) {
    return new ConnectionLostException(this, attempts);
  }
}
