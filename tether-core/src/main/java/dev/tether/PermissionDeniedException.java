package dev.tether;

import java.util.List;

/**
 * The server's interceptor refused the call before the service ran: the request was provably not
 * executed, and it is never retried, since another attempt by the same caller would be refused
 * again. Thrown by an interceptor to refuse; raised on the client with the server's reason.
 */
public class PermissionDeniedException extends TetherException {
  public PermissionDeniedException(String message) {
    super(message);
  }

  /**
   * A copy of {@code original} that also lists the call's attempts (see {@link
   * TetherException#withAttempts}).
   */
  protected PermissionDeniedException(PermissionDeniedException original, List<Attempt> attempts) {
    super(original, attempts);
  }

  @Override
  public PermissionDeniedException withAttempts(List<Attempt> attempts) {
    return new PermissionDeniedException(this, attempts);
  }
}
