package dev.tether;

import java.util.List;

/**
 * {@code flushBatch()} could not send some of the batch requests its proxy had queued: no
 * connection could be found, the write failed, or a request was larger than the server accepts.
 * {@link #lost()} says how many; they are no longer queued. None of them ran on a server: a batch
 * frame that did not leave whole is never executed (docs/protocol.md, "BATCH").
 */
public class BatchLostException extends TetherException {
  private final int lost;

  public BatchLostException(int lost, String message, Throwable cause) {
    super(message, cause);
    this.lost = lost;
  }

  /** How many queued requests were not sent. */
  public int lost() {
    return lost;
  }

  /**
   * A copy of {@code original} that also lists the call's attempts (see {@link
   * TetherException#withAttempts}).
   */
  protected BatchLostException(BatchLostException original, List<Attempt> attempts) {
    super(original, attempts);
    this.lost = original.lost;
  }

  @Override
  public BatchLostException withAttempts(List<Attempt> attempts) {
    return new BatchLostException(this, attempts);
  }
}
