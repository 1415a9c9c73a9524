package dev.tether;

/**
 * One try of a call that did not succeed, as recorded by the runtime: where it went, what happened,
 * and why. A failed call's exception lists them in {@link TetherException#attempts()}.
 *
 * @param endpoint the endpoint tried, in grammar form ("" when no connection was reached)
 */
public record Attempt(String endpoint, Outcome outcome, String reason) {

  /** What became of one attempt. */
  public enum Outcome {
    /** No connection could be opened or found. */
    CONNECT_FAILED,
    /**
     * The connection failed before the whole request was written: the server cannot have run it.
     */
    NOT_SENT,
    /** The server proved it did not run the request (REFUSED, or GOAWAY below its id). */
    REFUSED,
    /**
     * The server has no such service or operation (SERVICE_NOT_FOUND, OPERATION_NOT_FOUND): it ran
     * nothing, and a peer of a load-balanced group may serve the call.
     */
    NOT_FOUND,
    /** The connection broke after the request was sent: the server may have run it. */
    LOST_AFTER_SEND,
    /**
     * No answer within the attempt timeout; the attempt was cancelled, but the server may have run
     * it.
     */
    ATTEMPT_TIMEOUT,
    /**
     * The server answered INTERNAL (or, in another wire protocol, a status that says another server
     * may serve the call, such as gRPC's UNAVAILABLE): it failed the request and may have run part
     * of it.
     */
    SERVER_FAILED,
    /** A retry was due but the retry budget was spent. */
    BUDGET_EXHAUSTED
  }

  @Override
  public String toString() {
    return outcome + (endpoint.isEmpty() ? "" : " on " + endpoint) + ": " + reason;
  }
}
