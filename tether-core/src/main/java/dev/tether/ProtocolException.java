package dev.tether;

/** A peer broke the wire protocol; the connection that carried it was closed. */
public class ProtocolException extends TetherException {
  public ProtocolException(String message) {
    super(message);
  }

  public ProtocolException(String message, Throwable cause) {
    super(message, cause);
  }
}
