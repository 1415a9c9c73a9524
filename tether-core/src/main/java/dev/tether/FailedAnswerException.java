package dev.tether;

import java.util.List;

/**
 * A server of another wire protocol than Tether's own (such as gRPC) answered the call with a
 * failure status: {@link #status()} names it as that protocol does (gRPC's code name, e.g. {@code
 * "UNAVAILABLE"}), and {@link #answer()} is the answer as the protocol framed it, for the caller
 * that speaks the protocol (a gRPC channel reads the server's trailers from it). The server saw the
 * call, so it may have run it.
 */
public class FailedAnswerException extends TetherException {
  private final String status;
  private final byte[] answer;

  public FailedAnswerException(String message, String status, byte[] answer) {
    super(message);
    this.status = status;
    this.answer = answer;
  }

  /** The status the server answered, in its protocol's names. */
  public String status() {
    return status;
  }

  /** The answer as the protocol's link framed it; not copied, so not to be changed. */
  public byte[] answer() {
    return answer;
  }

  /**
   * A copy of {@code original} that also lists the call's attempts (see {@link
   * TetherException#withAttempts}).
   */
  protected FailedAnswerException(FailedAnswerException original, List<Attempt> attempts) {
    super(original, attempts);
    this.status = original.status;
    this.answer = original.answer;
  }

  @Override
  public FailedAnswerException withAttempts(List<Attempt> attempts) {
    return new FailedAnswerException(this, attempts);
  }
}
