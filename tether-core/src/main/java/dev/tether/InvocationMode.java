package dev.tether;

/**
 * How a proxy sends its requests; decides which endpoints fit (the second step of endpoint
 * selection).
 */
public enum InvocationMode {
  /** Request and response over a stream transport. */
  TWOWAY,
  /** Request only, over a stream transport; completes when written. */
  ONEWAY,
  /** Oneway requests queued by the proxy until its {@code flushBatch()}. */
  BATCH_ONEWAY,
  /** Request only, as one datagram. */
  DATAGRAM,
  /** Datagram requests queued until {@code flushBatch()}, sent as one datagram. */
  BATCH_DATAGRAM;

  /** True for the modes that travel over a datagram transport. */
  public boolean isDatagram() {
    return this == DATAGRAM || this == BATCH_DATAGRAM;
  }

  /** True for the modes that queue requests until flushed. */
  public boolean isBatch() {
    return this == BATCH_ONEWAY || this == BATCH_DATAGRAM;
  }

  /** True when the caller waits for a response. */
  public boolean expectsResponse() {
    return this == TWOWAY;
  }
}
