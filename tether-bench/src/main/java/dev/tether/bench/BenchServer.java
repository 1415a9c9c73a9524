package dev.tether.bench;

/**
 * The server half of a system under test: it listens on 127.0.0.1 at an ephemeral port and answers
 * echo calls, in this JVM or in a server process of its own ({@link ServerMain}).
 */
public interface BenchServer extends AutoCloseable {

  /**
   * Starts listening and returns the bound port.
   *
   * @throws Exception when the server cannot bind
   */
  int start() throws Exception;

  /** Stops the server and releases its threads; safe to call twice. */
  @Override
  void close();
}
