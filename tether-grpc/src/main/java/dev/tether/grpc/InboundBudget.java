package dev.tether.grpc;

/**
 * The request bytes one gRPC connection may make the server hold at once, over all its calls:
 * unfinished messages and whole ones no service asked for yet. Flow control alone does not bound
 * them, since an unfinished message a service asked for earns its client window as it arrives.
 * Changed on the connection's event loop only; {@link #held()} and {@link #peak()} may be read from
 * any thread.
 */
final class InboundBudget {
  private final long limit;

  /** Written on the loop only; volatile for readers elsewhere (status, tests). */
  private volatile long held;

  private volatile long peak;

  InboundBudget(long limit) {
    this.limit = limit;
  }

  /** Counts {@code bytes} more held, unless that would take the connection over its limit. */
  boolean take(long bytes) {
    long next = held + bytes;
    if (next > limit) {
      return false;
    }
    held = next;
    if (next > peak) {
      peak = next;
    }
    return true;
  }

  /** {@code bytes} taken before are held no more (handed to a service, or dropped). */
  void give(long bytes) {
    held -= bytes;
  }

  long limit() {
    return limit;
  }

  /** Bytes held now. */
  long held() {
    return held;
  }

  /** The most bytes held at once since the connection opened. */
  long peak() {
    return peak;
  }
}
