package dev.tether;

/** The server has no service of the requested name. */
public class ServiceNotFoundException extends TetherException {
  public ServiceNotFoundException(String message) {
    super(message);
  }

  public ServiceNotFoundException(String message, Throwable cause) {
    super(message, cause);
  }
}
