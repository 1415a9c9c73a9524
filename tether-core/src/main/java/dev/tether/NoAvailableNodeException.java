package dev.tether;

import java.util.List;

/** Every node of the proxy's cluster is marked dead. */
public class NoAvailableNodeException extends TetherException {
  public NoAvailableNodeException(String message) {
    super(message);
  }

  public NoAvailableNodeException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * A copy of {@code original} that also lists the call's attempts (see {@link
   * TetherException#withAttempts}).
   */
  protected NoAvailableNodeException(NoAvailableNodeException original, List<Attempt> attempts) {
    super(original, attempts);
  }

  @Override
  public NoAvailableNodeException withAttempts(List<Attempt> attempts) {
    return new NoAvailableNodeException(this, attempts);
  }
}
