package dev.tether.client;

import dev.tether.observe.NodeStatus;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Chooses the connection for each call of a proxy that balances load over nodes, and keeps track of
 * the nodes' health. The cluster package implements it; the client only calls it, so the client
 * never depends on the cluster package.
 */
public interface NodeRouter {
  /**
   * The connection for a call's next attempt, on a live node not in {@code exclude}. Fails with
   * {@code NoAvailableNodeException} when no node is alive, at once or, for a proxy that waits for
   * ready, once {@code deadlineNanos} passes (0: no deadline).
   */
  CompletableFuture<RequestChannel> route(
      ProxySettings settings, Set<ConnectionKey> exclude, long deadlineNanos);

  /** Opens a connection to every node; completes once one is connected. */
  CompletableFuture<Void> connectAny(ProxySettings settings);

  /** A call went out on {@code c}. */
  void onCallStarted(RequestChannel c);

  /**
   * The call that went out on {@code c} finished after {@code latencyNanos}; {@code blame} says
   * whether the node answered with a failure, which counts towards ejecting it. A lost connection
   * blames no node: the supervisor sees it.
   */
  void onCallFinished(RequestChannel c, long latencyNanos, AnswerBlame blame);

  /** As {@link #onCallFinished(RequestChannel, long, AnswerBlame)}: a node fault or a good call. */
  default void onCallFinished(RequestChannel c, long latencyNanos, boolean nodeFault) {
    onCallFinished(c, latencyNanos, nodeFault ? AnswerBlame.NODE_FAULT : AnswerBlame.NONE);
  }

  /**
   * A stream the node of {@code c} accepted (its opening counted {@link AnswerBlame#PENDING}) ended
   * as {@code blame} says, for the group's outlier detection alone: its opening already counted for
   * load and latency. Any thread.
   */
  default void onStreamEnded(RequestChannel c, AnswerBlame blame) {}

  /**
   * The server of {@code key} answered that it has no such service or operation for {@code service}
   * (it runs another build): the node is skipped for that service while a peer may take the call.
   * Control executor.
   */
  void onNotFound(ConnectionKey key, String service);

  /** The router's nodes as a status snapshot shows them. */
  List<NodeStatus> nodeStatus();

  /**
   * The runtime closes (any thread): the calls waiting for a ready node fail now, and a call that
   * would wait from now on fails at once, since no node will connect again.
   */
  void onRuntimeClosed();

  /** Makes the router for one group of proxies sharing endpoints, connection id and strategy. */
  @FunctionalInterface
  interface Factory {
    NodeRouter create(NodeHost host, ProxySettings settings);
  }
}
