package dev.tether.bench;

/**
 * Receives the outcome of one {@link BenchSystem#call}: exactly one of the two methods runs, once.
 */
public interface ResponseHandler {

  /** The call returned {@code response}, the server's echo of the request. */
  void onResponse(byte[] response);

  /** The call failed: the connection broke, the server refused it, or the system is closing. */
  void onFailure(Throwable cause);
}
