package dev.tether.grpc;

/**
 * The message bytes one gRPC connection may make its receiver hold at once, over all its calls: on
 * a server, requests' unfinished messages and whole ones no service asked for yet; on a client,
 * answers' messages waiting for their trailers and streams' messages in progress. Flow control
 * alone does not bound them, since a message in progress earns its sender window as it arrives.
 * Changed on the connection's event loop only; {@link #held()} and {@link #peak()} may be read from
 * any thread.
 */
public final class InboundBudget {
  private final long limit;

  /** Written on the loop only; volatile for readers elsewhere (status, tests). */
  private volatile long held;

  private volatile long peak;

  public InboundBudget(long limit) {
    this.limit = limit;
  }

  /** Counts {@code bytes} more held, unless that would take the connection over its limit. */
  public boolean take(long bytes) {
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
  public void give(long bytes) {
    held -= bytes;
  }

  public long limit() {
    return limit;
  }

  /** Bytes held now. */
  public long held() {
    return held;
  }

  /** The most bytes held at once since the connection opened. */
  public long peak() {
    return peak;
  }
}
