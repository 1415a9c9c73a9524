package dev.tether;

/** The server proved it did not execute the request (REFUSED, or above a GOAWAY's last accepted id). */
public class RequestRefusedException extends TetherException {
  public RequestRefusedException(String message) {
    super(message);
  }

  public RequestRefusedException(String message, Throwable cause) {
    super(message, cause);
  }
}
