package dev.tether;

/** No server satisfies the proxy's required server version range. */
public class IncompatibleServerException extends TetherException {
  public IncompatibleServerException(String message) {
    super(message);
  }

  public IncompatibleServerException(String message, Throwable cause) {
    super(message, cause);
  }
}
