package dev.tether;

import java.util.List;

/**
 * One attempt of a call got no answer within the proxy's attempt timeout and the call could not go
 * on elsewhere: its request had been sent, so the server may have run it ({@link
 * #mayHaveExecuted()}), and it is not idempotent. The connection stays open.
 */
public class AttemptTimeoutException extends InvocationTimeoutException {
  public AttemptTimeoutException(String message) {
    super(message);
  }

  /** Always true: the request was on the wire when the attempt was given up. */
  public boolean mayHaveExecuted() {
    return true;
  }

  /**
   * A copy of {@code original} that also lists the call's attempts (see {@link
   * TetherException#withAttempts}).
   */
  protected AttemptTimeoutException(AttemptTimeoutException original, List<Attempt> attempts) {
    super(original, attempts);
  }

  @Override
  public AttemptTimeoutException withAttempts(List<Attempt> attempts) {
    return new AttemptTimeoutException(this, attempts);
  }
}
