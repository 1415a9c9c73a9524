package dev.tether;

/** Every node of the proxy's cluster is marked dead. */
public class NoAvailableNodeException extends TetherException {
  public NoAvailableNodeException(String message) {
    super(message);
  }

  public NoAvailableNodeException(String message, Throwable cause) {
    super(message, cause);
  }
}
