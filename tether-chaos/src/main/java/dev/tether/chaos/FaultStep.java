package dev.tether.chaos;

/**
 * One fault of a plan: at {@code atNanos} after the run's start, {@code kind} hits {@code node}
 * (for a rolling restart, the node it starts with) and heals {@code holdNanos} later.
 *
 * @param latencyMillis the delay each way of a {@link FaultKind#LATENCY} spike; 0 otherwise
 */
public record FaultStep(
    long atNanos, FaultKind kind, int node, long holdNanos, long latencyMillis) {
  /** When the fault heals, after the run's start. */
  public long healNanos() {
    return atNanos + holdNanos;
  }
}
