package dev.tether.bench;

/**
 * The client half of a system's streams: one connection to a server on 127.0.0.1 that serves the
 * benchmark's two stream operations, over which streams open. {@link #feed} is a server stream of
 * {@link StampedItems} without end; {@link #echo} is a bidirectional stream whose client sends
 * stamped items without end, as fast as flow control lets it, and whose server sends each back.
 * Each honours flow control both ways; either runs until cancelled.
 */
interface StreamClient extends AutoCloseable {

  /** Opens the one connection to the server at {@code port}; returns once a stream can open. */
  void connect(int port) throws Exception;

  /** Opens a server stream of items of {@code itemBytes}, each handed to {@code sink}. */
  Cancellable feed(int itemBytes, StreamMeter.Sink sink);

  /** Opens an echo stream of items of {@code itemBytes}; each echoed item goes to {@code sink}. */
  Cancellable echo(int itemBytes, StreamMeter.Sink sink);

  /** Closes the connection and the client's threads; safe to call twice. */
  @Override
  void close();

  /** An open stream, stopped by its subscriber. */
  @FunctionalInterface
  interface Cancellable {
    void cancel();
  }
}
