package dev.tether.bench;

/**
 * The client half of a system under test: one connection to a server on 127.0.0.1, over which
 * {@link #call} issues echo calls. The contract of {@link #call} is {@link BenchSystem#call}'s.
 */
public interface BenchClient extends AutoCloseable {

  /**
   * Opens the one connection to the server listening on 127.0.0.1 at {@code port}; returns once a
   * call can be issued.
   *
   * @throws Exception when the client cannot connect
   */
  void connect(int port) throws Exception;

  /** See {@link BenchSystem#call}. */
  void call(byte[] payload, ResponseHandler handler);

  /** Closes the connection and releases the client's threads; safe to call twice. */
  @Override
  void close();
}
