package dev.tether.cluster;

import java.util.List;

/**
 * A load-balancing strategy: picks the node for each call among the live ones, and may learn from
 * finished calls. One instance per node group; implementations are thread-safe and take time and
 * randomness from their caller or constructor, never from the system. Picking runs on the callers'
 * threads from the group's published snapshot (as gRPC's pickers do), so a strategy that learns
 * guards its own small state rather than hopping onto the control executor on every call.
 */
public interface NodeSelector {
  /**
   * @param live the nodes that may take the call; never empty, in a stable order
   * @return the index of the chosen node in {@code live}
   */
  int pick(List<? extends NodeStats> live, long nowNanos);

  /**
   * Picks for a call that already tried, or is still on, other nodes (a retry or a hedge), from
   * {@code live} without those. By default as {@link #pick}; a strategy whose picks take turns
   * keeps such a pick out of the turns, so first attempts stay spread as they would be without it.
   */
  default int pickAnother(List<? extends NodeStats> live, long nowNanos) {
    return pick(live, nowNanos);
  }

  /** A call on {@code node} finished after {@code latencyNanos}. */
  default void onCallFinished(NodeStats node, long latencyNanos, long nowNanos) {}
}
