package dev.tether;

import java.util.List;

/** A peer broke the wire protocol; the connection that carried it was closed. */
public class ProtocolException extends TetherException {
  public ProtocolException(String message) {
    super(message);
  }

  public ProtocolException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * A copy of {@code original} that also lists the call's attempts (see {@link
   * TetherException#withAttempts}).
   */
  protected ProtocolException(ProtocolException original, List<Attempt> attempts) {
    super(original, attempts);
  }

  @Override
  public ProtocolException withAttempts(List<Attempt> attempts) {
    return new ProtocolException(this, attempts);
  }
}
