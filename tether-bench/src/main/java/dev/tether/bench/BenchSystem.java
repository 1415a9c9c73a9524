package dev.tether.bench;

import java.util.OptionalLong;

/**
 * One RPC system under test in one setting, for example gRPC with direct executors.
 *
 * <p>{@link #start()} starts a server on 127.0.0.1 (an ephemeral port) and opens exactly one client
 * connection to it; {@link #call} then issues asynchronous echo calls over that connection, and
 * {@link #close()} frees the server, the connection and every thread the system started.
 *
 * <p>An instance is used for one benchmark run: created, started, called, closed.
 */
public interface BenchSystem extends AutoCloseable {

  /**
   * Starts the server and connects the client; returns once a call can be issued.
   *
   * @throws Exception when the server cannot bind or the client cannot connect
   */
  void start() throws Exception;

  /**
   * Sends {@code payload} to the server's echo operation and reports the answer to {@code handler},
   * exactly once, on whichever thread the system completes calls.
   *
   * <p>May be called from any thread, including from inside {@link ResponseHandler#onResponse} (the
   * load generator issues a slot's next call from there). A successful response must never be
   * delivered from inside this method, so that a closed loop of calls cannot recurse.
   *
   * @param payload the request body; the caller does not modify it while the call is outstanding
   * @param handler receives the response body or the failure
   */
  void call(byte[] payload, ResponseHandler handler);

  /**
   * The CPU time the server's process has used so far, when the server runs in a process of its
   * own; empty when it shares this JVM, whose CPU time then covers client and server together.
   */
  default OptionalLong serverCpuNanos() {
    return OptionalLong.empty();
  }

  /** Stops the client and the server and releases their threads; safe to call twice. */
  @Override
  void close();
}
