package dev.tether.grpc.client;

import io.netty.handler.codec.http2.Http2Headers;

/**
 * Where a server stream's messages go once the server accepted the stream (its response HEADERS
 * came): until then the stream's opening is an ordinary call of the runtime, retried or not by the
 * at-most-once rule; from then on plain gRPC cannot resume it, so a loss ends it. Every method on
 * the connection's event loop, in the order the frames came.
 */
interface StreamSink {
  /** The server accepted the stream: {@code control} gives its window back and cancels it. */
  void onAccepted(Control control);

  /** A message, {@code wireBytes} of the stream's window (its prefix included). */
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
  }
}
