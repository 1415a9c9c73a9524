package dev.tether.observe;

import java.util.List;

/**
 * An immutable snapshot of a client runtime: its connections, the nodes of its load-balanced
 * groups, and its retry counters. Cheap enough to take every 100 ms.
 *
 * @param connections every connection the runtime holds, in no particular order
 * @param nodes every node of every node group
 * @param retries calls retried since the runtime started (one per retry)
 * @param retryBudgetExhausted retries refused because the retry budget was spent
 */
public record TetherStatus(
    List<ConnectionStatus> connections, List<NodeStatus> nodes, long retries, long retryBudgetExhausted) {
  public TetherStatus {
    connections = List.copyOf(connections);
    nodes = List.copyOf(nodes);
  }
}
