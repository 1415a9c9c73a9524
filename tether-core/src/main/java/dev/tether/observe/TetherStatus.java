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
 * @param streamItems items the runtime's streams sent and delivered since it started, open streams
 *     included (brought up to date after each batch of a stream's items)
 */
public record TetherStatus(
    List<ConnectionStatus> connections,
    List<NodeStatus> nodes,
    long retries,
    long retryBudgetExhausted,
    TetherEvent.StreamItems streamItems) {
  public TetherStatus {
    connections = List.copyOf(connections);
    nodes = List.copyOf(nodes);
  }

  /** A snapshot of a runtime whose streams carried no item. */
  public TetherStatus(
      List<ConnectionStatus> connections,
      List<NodeStatus> nodes,
      long retries,
      long retryBudgetExhausted) {
    this(connections, nodes, retries, retryBudgetExhausted, new TetherEvent.StreamItems(0, 0));
  }
}
