package dev.tether;

import java.util.List;

/**
 * A stream ended because the runtime could not carry it on: its connection was lost and could not
 * be resumed (the server restarted, forgot it, or stayed unreachable for the resume window), or the
 * server shut down. {@link #delivered()} items reached the subscriber, each once and in order, so
 * the application can reopen the stream from there.
 */
public class StreamLostException extends TetherException {
  private final long delivered;

  public StreamLostException(String message, long delivered) {
    super(message);
    this.delivered = delivered;
  }

  public StreamLostException(String message, long delivered, Throwable cause) {
    super(message, cause);
    this.delivered = delivered;
  }

  /** A copy of {@code original} that also lists the opening's attempts. */
  protected StreamLostException(StreamLostException original, List<Attempt> attempts) {
    super(original, attempts);
    this.delivered = original.delivered;
  }

  /** Items this stream delivered to its subscriber before it was lost. */
  public long delivered() {
    return delivered;
  }

  @Override
  public StreamLostException withAttempts(List<Attempt> attempts) {
    return new StreamLostException(this, attempts);
  }
}
