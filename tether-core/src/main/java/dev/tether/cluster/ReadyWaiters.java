package dev.tether.cluster;

import dev.tether.NoAvailableNodeException;
import dev.tether.TetherException;
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
 * The calls of one node group that wait while no node can take a call: each waits until a node is
 * ready, then is routed afresh, or fails with NoAvailableNodeException when its deadline passes on
 * the runtime's clock, or when the runtime closes. A call that does not wait for ready waits only
 * while some node may still become ready (connecting, handshaking): it fails as soon as none may.
 * Control executor only.
 */
final class ReadyWaiters {
  private final NodeHost host;

  /** The group's nodes in words, for the message of a call whose deadline passed. */
  private final Supplier<Object> nodes;

  private final List<Waiter> waiting = new ArrayList<>();

  /** True once the runtime closed: no call waits any more. */
  private boolean closed;

  /** A call waiting for any node to come back. */
  private static final class Waiter {
    final ProxySettings settings;
    final long deadlineNanos;

    /** Waits for ready: stays while every node is down, until its deadline. */
    final boolean patient;

    final CompletableFuture<RequestChannel> result = new CompletableFuture<>();

    /** Non-null only when the call has a deadline. */
    Scheduler.Cancellable timer;

    Waiter(ProxySettings settings, long deadlineNanos, boolean patient) {
      this.settings = settings;
      this.deadlineNanos = deadlineNanos;
      this.patient = patient;
    }
  }

  ReadyWaiters(NodeHost host, Supplier<Object> nodes) {
    this.host = host;
    this.nodes = nodes;
  }

  /**
   * A call of {@code settings} waits, {@code waitNanos} at most when it has a deadline ({@code
   * deadlineNanos} not 0); the future gives its connection once a node is ready. {@code patient}:
   * it waits for ready, and stays while every node is down.
   */
  CompletableFuture<RequestChannel> add(
      ProxySettings settings, long deadlineNanos, long waitNanos, boolean patient) {
    host.control().assertInExecutor();
    if (closed) {
      return CompletableFuture.failedFuture(closedWhileWaiting()); // no node will connect again
    }
    Waiter w = new Waiter(settings, deadlineNanos, patient);
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
                  + " was ready before the deadline: "
                  + nodes.get()));
    }
  }

  /**
   * No node is ready and none may become ready (control executor): the calls that do not wait for
   * ready fail now rather than at their deadline.
   */
  void failImpatient() {
    host.control().assertInExecutor();
    for (Waiter w : List.copyOf(waiting)) {
      if (!w.patient) {
        waiting.remove(w);
        if (w.timer != null) {
          w.timer.cancel();
        }
        w.result.completeExceptionally(
            new NoAvailableNodeException(
                "no node of " + w.settings.identity() + " could be reached: " + nodes.get()));
      }
    }
  }

  /**
   * The runtime closed (control executor): every waiting call fails, each with an exception of its
   * own, and so does every call that would wait from now on.
   */
  void failAll() {
    host.control().assertInExecutor();
    closed = true;
    List<Waiter> all = List.copyOf(waiting);
    waiting.clear();
    for (Waiter w : all) {
      if (w.timer != null) {
        w.timer.cancel();
      }
      w.result.completeExceptionally(closedWhileWaiting());
    }
  }

  private static TetherException closedWhileWaiting() {
    return new TetherException("the Tether runtime closed while the call waited for a ready node");
  }

  /** A node takes calls again: every waiting call is routed by {@code group} now. */
  void wake(NodeRouter group) {
    host.control().assertInExecutor();
    if (waiting.isEmpty()) {
      return;
    }
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
