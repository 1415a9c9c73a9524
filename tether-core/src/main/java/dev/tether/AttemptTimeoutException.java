package dev.tether;

/**
 * One attempt of a call got no answer within the proxy's attempt timeout and the call could not
 * go on elsewhere: its request had been sent, so the server may have run it
 * ({@link #mayHaveExecuted()}), and it is not idempotent. The connection stays open.
 */
public class AttemptTimeoutException extends InvocationTimeoutException {
  public AttemptTimeoutException(String message) {
    super(message);
  }

  /** Always true: the request was on the wire when the attempt was given up. */
  public boolean mayHaveExecuted() {
    return true;
  }
}
