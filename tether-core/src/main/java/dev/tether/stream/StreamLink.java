package dev.tether.stream;

import dev.tether.protocol.Frame;
import java.util.concurrent.CompletableFuture;

/**
 * Where a stream's frames go while it is attached to a connection: the connection and the id the
 * stream has on it (a resumed stream has a new id on its new connection). Writes are queued and
 * leave with the next {@link #flush()}.
 */
public interface StreamLink {
  /** The stream's id on this connection: the request id that opened or resumed it. */
  int streamId();

  /** Queues {@code frame} for the connection; it leaves with the next flush. */
  void write(Frame frame);

  /** Sends everything written since the last flush. */
  void flush();

  /**
   * Sends everything written since the last flush; the future completes once it has left for the
   * peer (or could not: the connection closed). What a last word before a close waits for.
   */
  CompletableFuture<Void> flushAndWait();

  /**
   * True while the connection takes more writes without queueing past its high water mark; a sender
   * asks its publisher for more only then.
   */
  default boolean isWritable() {
    return true;
  }

  /** Runs {@code wake} once, from the connection's loop, when it is writable again (or closed). */
  default void whenWritable(Runnable wake) {
    wake.run();
  }

  /** The largest frame the peer accepts (its HELLO or WELCOME); larger items are never written. */
  default int peerMaxFrameSize() {
    return Integer.MAX_VALUE;
  }
}
