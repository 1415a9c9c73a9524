package dev.tether;

/**
 * A request (or a batch of them) would make a frame larger than the server accepts, as its
 * WELCOME announced: it was never written, the connection stays open, and it is never retried,
 * since every server of the same configuration would refuse it too.
 */
public class RequestTooLargeException extends TetherException {
  public RequestTooLargeException(String message) {
    super(message);
  }
}
