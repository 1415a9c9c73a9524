package dev.tether;

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
}
