package dev.tether.cluster;

import dev.tether.NoAvailableNodeException;
import dev.tether.client.ConnectionKey;
import dev.tether.client.NodeHost;
import dev.tether.client.NodeRouter;
import dev.tether.client.ProxySettings;
import dev.tether.client.RequestChannel;
import dev.tether.spi.Scheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The calls of one node group that wait for ready while no node takes calls: each waits until a
 * node becomes selectable again, then is routed afresh, or fails with NoAvailableNodeException when
 * its deadline passes on the runtime's clock. Control executor only.
 */
final class ReadyWaiters {
  private final NodeHost host;

  /** The group's nodes in words, for the message of a call whose deadline passed. */
  private final Supplier<Object> nodes;

  private final List<Waiter> waiting = new ArrayList<>();

  /** A call waiting for any node to come back. */
  private static final class Waiter {
    final ProxySettings settings;
    final long deadlineNanos;
    final CompletableFuture<RequestChannel> result = new CompletableFuture<>();

    /** Non-null only when the call has a deadline. */
    Scheduler.Cancellable timer;

    Waiter(ProxySettings settings, long deadlineNanos) {
      this.settings = settings;
      this.deadlineNanos = deadlineNanos;
    }
  }

  ReadyWaiters(NodeHost host, Supplier<Object> nodes) {
    this.host = host;
    this.nodes = nodes;
  }

  /**
   * A call of {@code settings} waits, {@code waitNanos} at most when it has a deadline ({@code
   * deadlineNanos} not 0); the future gives its connection once a node is back.
   */
  CompletableFuture<RequestChannel> add(
      ProxySettings settings, long deadlineNanos, long waitNanos) {
    host.control().assertInExecutor();
    Waiter w = new Waiter(settings, deadlineNanos);
    waiting.add(w);
    if (deadlineNanos != 0) {
      w.timer = host.scheduleOnControl(() -> onDeadline(w), waitNanos);
    }
    return w.result;
  }

  private void onDeadline(Waiter w) {
    if (waiting.remove(w)) {
      w.result.completeExceptionally(
          new NoAvailableNodeException(
              "no node of "
                  + w.settings.identity()
                  + " came back before the deadline: "
                  + nodes.get()));
    }
  }

  /** A node takes calls again: every waiting call is routed by {@code group} now. */
  void wake(NodeRouter group) {
    host.control().assertInExecutor();
    List<Waiter> ready = new ArrayList<>(waiting);
    waiting.clear();
    for (Waiter w : ready) {
      if (w.timer != null) {
        w.timer.cancel();
      }
      group
          .route(w.settings, Set.<ConnectionKey>of(), w.deadlineNanos)
          .whenComplete(
              (c, e) -> {
                if (e != null) {
                  w.result.completeExceptionally(e);
                } else {
                  w.result.complete(c);
                }
              });
    }
  }
}
