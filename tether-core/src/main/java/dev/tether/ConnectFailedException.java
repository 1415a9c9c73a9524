package dev.tether;

/** No endpoint of the proxy accepted a connection; the message lists every endpoint tried. */
public class ConnectFailedException extends TetherException {
  public ConnectFailedException(String message) {
    super(message);
  }

  public ConnectFailedException(String message, Throwable cause) {
    super(message, cause);
  }
}
