package dev.tether;

/** Endpoint selection left no usable endpoint; the message names the step that emptied the list. */
public class NoEndpointException extends TetherException {
  public NoEndpointException(String message) {
    super(message);
  }

  public NoEndpointException(String message, Throwable cause) {
    super(message, cause);
  }
}
