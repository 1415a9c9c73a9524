package dev.tether.codec;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.function.Function;

/** What a typed stub calls to send one encoded request; a proxy provides it. */
@FunctionalInterface
public interface RemoteCall {
  CompletableFuture<byte[]> send(String operation, byte[] body, boolean idempotent);

  /**
   * Sends one encoded request whose answer {@code decoder} turns into the future's value. A failure
   * of the decoder fails the future. By default a stage on {@link #send}'s future; a proxy
   * completes the future from the call itself.
   */
  default <T> CompletableFuture<T> send(
      String operation, byte[] body, boolean idempotent, Function<byte[], T> decoder) {
    return send(operation, body, idempotent).thenApply(decoder);
  }

  /**
   * Opens a stream of {@code operation} whose request is {@code body}; {@code outbound} is what a
   * bidirectional stream sends, null for a server stream. Cold: each subscription opens one.
   */
  default Flow.Publisher<byte[]> stream(
      String operation, byte[] body, boolean idempotent, Flow.Publisher<byte[]> outbound) {
    throw new UnsupportedOperationException("this stub cannot open streams");
  }
}
