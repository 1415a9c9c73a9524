package dev.tether.cluster;

import dev.tether.NoAvailableNodeException;
import dev.tether.client.NodeHost;
import dev.tether.client.ProxySettings;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A group's first connection: every node is dialled, and the future completes once one is up, or
 * fails once every node failed (or none is known). Counted on the control executor.
 */
final class FirstConnection {
  private FirstConnection() {}

  /** Dials every node of {@code all} (control executor); see the class. */
  static CompletableFuture<Void> of(NodeHost host, List<Node> all, ProxySettings settings) {
    CompletableFuture<Void> first = new CompletableFuture<>();
    if (all.isEmpty()) {
      first.completeExceptionally(
          new NoAvailableNodeException("no node of " + settings.identity() + " is known"));
      return first;
    }
    int[] failures = {0};
    for (Node n : all) {
      n.supervisor
          .obtain(n.candidate)
          .whenComplete(
              (c, failure) ->
                  host.control()
                      .execute(
                          () -> {
                            if (failure == null) {
                              first.complete(null);
                            } else if (++failures[0] == all.size()) {
                              first.completeExceptionally(
                                  new NoAvailableNodeException(
                                      "no node of "
                                          + settings.identity()
                                          + " accepted a connection: "
                                          + all));
                            }
                          }));
    }
    return first;
  }
}
