package dev.tether;

/** The service has no operation of the requested name. */
public class OperationNotFoundException extends TetherException {
  public OperationNotFoundException(String message) {
    super(message);
  }

  public OperationNotFoundException(String message, Throwable cause) {
    super(message, cause);
  }
}
