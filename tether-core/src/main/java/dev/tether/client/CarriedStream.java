package dev.tether.client;

import dev.tether.protocol.Frame;
import dev.tether.stream.StreamReceiver;

/**
 * A stream as the connection that carries it sees it: what its stream table ({@link ClientStreams})
 * tells it. {@link ClientStream} is the one implementation; the connection side names only this, so
 * it needs nothing of the proxies and the runtime a stream works with.
 */
interface CarriedStream {
  /** The server accepted the opening or the RESUME on {@code on} (called on its loop). */
  void accepted(ClientConnection on, ClientStreams table, int streamId, byte[] body);

  /** The receiving side of the stream, whose credit a server's item must stay within. */
  StreamReceiver replies();

  /** A frame for this stream from the connection that carries it (from its loop). */
  void onFrame(Frame frame, ClientStreams from);

  /** The connection that carried the stream closed (called on its loop): resume, or lose it. */
  void linkLost(ClientStreams from, Throwable why);

  /**
   * This side is closing the connection under the stream: the server is told, the subscriber too.
   */
  void closeBySelf(String why);
}
