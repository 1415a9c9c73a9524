package dev.tether;

/** The call's invocation timeout passed without an answer; the connection stays open. */
public class InvocationTimeoutException extends TetherException {
  public InvocationTimeoutException(String message) {
    super(message);
  }

  public InvocationTimeoutException(String message, Throwable cause) {
    super(message, cause);
  }
}
