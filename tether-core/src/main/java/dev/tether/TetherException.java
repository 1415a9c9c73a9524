package dev.tether;

/** Base of every exception Tether raises; unchecked. The message says what was tried. */
public class TetherException extends RuntimeException {
  public TetherException(String message) {
    super(message);
  }

  public TetherException(String message, Throwable cause) {
    super(message, cause);
  }
}
