package dev.tether.observe;

/**
 * One node of a load-balanced group as a status snapshot saw it.
 *
 * @param endpoint the node, in grammar form
 * @param health "ALIVE", "DEAD", "INCOMPATIBLE", "EJECTED" (its calls kept failing: out for a
 *     while), "PROBING" (back after an ejection; its next call decides) or "UNKNOWN" (never
 *     connected yet)
 * @param inFlight calls outstanding on the node
 * @param latencyMicros the recent average latency the strategies use, 0 before the first answer
 * @param why why the node's health is what it is: the detail of its last move (for an ejected node
 *     the figures that decided it); empty before its first
 */
public record NodeStatus(
    String endpoint, String health, int inFlight, double latencyMicros, String why) {

  /** A node whose reason is not known. */
  public NodeStatus(String endpoint, String health, int inFlight, double latencyMicros) {
    this(endpoint, health, inFlight, latencyMicros, "");
  }
}
