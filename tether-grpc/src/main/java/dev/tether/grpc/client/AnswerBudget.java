package dev.tether.grpc.client;

/**
 * The answer bytes one connection to a gRPC server may make the client hold at once, over all its
 * calls: unary answers' unfinished and whole messages waiting for trailers, and streams' messages
 * in progress. Flow control does not bound them, since both earn the server window as they arrive.
 * The connection's event loop only.
 */
final class AnswerBudget {
  private final long limit;

  private long held;

  AnswerBudget(long limit) {
    this.limit = limit;
  }

  /** Counts {@code bytes} more held, unless that would take the connection over its limit. */
  boolean take(int bytes) {
    if (held + bytes > limit) {
      return false;
    }
    held += bytes;
    return true;
  }

  /** {@code bytes} taken before are held no more (handed on, or dropped). */
  void give(long bytes) {
    held -= bytes;
  }

  long limit() {
    return limit;
  }
}
