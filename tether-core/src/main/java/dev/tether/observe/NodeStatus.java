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
 */
public record NodeStatus(String endpoint, String health, int inFlight, double latencyMicros) {}
