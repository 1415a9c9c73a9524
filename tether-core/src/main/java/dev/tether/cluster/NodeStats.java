package dev.tether.cluster;

import dev.tether.Endpoint;

/** What a selection strategy may read of one node: where it is and how busy and fast it is. */
public interface NodeStats {
  Endpoint endpoint();

  /** Calls sent to the node and not finished yet. */
  int inFlight();

  /**
   * Exponentially weighted moving average of call latency in nanoseconds; 0 before the first call.
   */
  double latencyEwmaNanos();

  /**
   * The strategy's turn number when it last picked the node, 0 if never; a strategy that breaks
   * ties by who waited longest reads it.
   */
  default long lastPick() {
    return 0;
  }

  /** The strategy picked the node on its turn {@code turn}. */
  default void picked(long turn) {}
}
