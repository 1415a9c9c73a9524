package dev.tether.grpc.client;

import dev.tether.spi.Scheduler;
import io.netty.handler.codec.http2.Http2Headers;

/**
 * Where a stream's messages go once it is accepted: a server stream when its response HEADERS came,
 * a stream the caller sends on once its HEADERS were written (its messages are not kept for a
 * replay). Until then the stream's opening is an ordinary call of the runtime, retried or not by
 * the at-most-once rule; from then on plain gRPC cannot resume it, so a loss ends it. Every method
 * on the connection's event loop, in the order the frames came.
 */
interface StreamSink {
  /** The server accepted the stream: {@code control} gives its window back and cancels it. */
  void onAccepted(Control control);

  /**
   * What is left of the stream's own deadline (the caller's {@code CallOptions} or {@code
   * Context}), in milliseconds, 0 for none: a stream outlives its opening, so the proxy's
   * invocation timeout, which bounds only the opening, is not the deadline the server hears.
   */
  default long remainingMillis() {
    return 0;
  }

  /** The response headers of a stream accepted before they came (one the caller sends on). */
  default void onHeaders(Http2Headers headers) {}

  /**
   * {@code wireBytes} of a message the caller sent left for the wire (the stream's send window and
   * the socket took it), or were dropped with the stream.
   */
  default void onSent(int wireBytes) {}

  /**
   * A message, and the {@code wireBytes} (at least one) of the stream's window its caller gives
   * back once it read it: its size with its prefix, less what the link gave back while it arrived.
   */
  void onMessage(byte[] message, int wireBytes);

  /** The trailers ended the stream: its status is theirs. */
  void onTrailers(Http2Headers trailers);

  /** The stream ended without trailers (reset, connection lost). */
  void onLost(String why);

  /** What the caller may do to an accepted stream; any thread. */
  interface Control {
    /** The caller read messages of {@code wireBytes}: the server may send that much more. */
    void consumed(int wireBytes);

    /** The caller gave up: the stream is reset with CANCEL. */
    void cancel();

    /** Sends one more message on the stream (a client or bidirectional stream). */
    void send(byte[] message);

    /** The caller sends nothing more: the stream's half ends (END_STREAM). */
    void halfClose();

    /**
     * Runs {@code task} after {@code delayNanos} of the runtime's clock (its injected scheduler, as
     * the runtime times its own calls' deadlines); the handle calls it off.
     */
    Scheduler.Cancellable schedule(Runnable task, long delayNanos);
  }
}
