package dev.tether;

/** A connection (TCP connect and handshake) did not complete within the connect timeout. */
public class ConnectTimeoutException extends TetherException {
  public ConnectTimeoutException(String message) {
    super(message);
  }

  public ConnectTimeoutException(String message, Throwable cause) {
    super(message, cause);
  }
}
