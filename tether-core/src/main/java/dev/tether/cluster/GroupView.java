package dev.tether.cluster;

import dev.tether.Endpoint;
import dev.tether.client.ConnectionKey;
import dev.tether.client.ConnectionSupervisor;
import dev.tether.client.RequestChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An immutable view of a node group for picking, published by the group on the control executor
 * after every change and read on the callers' threads: every node, its health and why when
 * published, the nodes that can take a call now (in rotation and their connection READY), by key,
 * and the keys on probation after an ejection (whose next outcome the outlier detector must hear).
 */
record GroupView(
    List<Endpoint> builtFrom,
    List<Node> all,
    List<NodeHealth> health,
    List<String> why,
    List<Node> ready,
    Map<ConnectionKey, Node> byKey,
    Set<ConnectionKey> probing) {

  static final GroupView EMPTY =
      new GroupView(null, List.of(), List.of(), List.of(), List.of(), Map.of(), Set.of());

  /**
   * Whether {@code node} can take a call now: in rotation (gRPC's balancers pick only READY
   * subchannels, and so do these) and its connection past its handshake. A node whose connection is
   * connecting, handshaking or backing off waits outside the rotation. Control executor.
   */
  static boolean isReady(Node node) {
    return node.health().isSelectable()
        && node.supervisor.state() == ConnectionSupervisor.State.READY;
  }

  /**
   * Whether {@code node} may become ready without anyone's help: in rotation or dead but dialling,
   * not ejected and not incompatible. A call with no ready node waits for such a node rather than
   * failing. Control executor.
   */
  static boolean mayBecomeReady(Node node) {
    NodeHealth h = node.health();
    if (h == NodeHealth.EJECTED || h == NodeHealth.INCOMPATIBLE) {
      return false;
    }
    return switch (node.supervisor.state()) {
      case CONNECTING, IDLE -> true;
      case READY -> node.supervisor.usable() == null; // draining: its next connection comes
      case TRANSIENT_FAILURE, SHUTDOWN -> false;
    };
  }

  /**
   * The node's connection if it takes calls now: usable and past its handshake (a connection that
   * is still connecting counts as usable to its supervisor, and a call handed to it would wait for
   * HELLO's answer); else null. Any thread.
   */
  static RequestChannel connectionOf(Node node) {
    RequestChannel c = node.supervisor.usable();
    return c != null && c.ready().isDone() ? c : null;
  }

  /**
   * The node {@code strategy} chooses among {@code ready} less {@code exclude} whose connection is
   * usable now, or null when none is. A node whose connection stopped being usable since the view
   * was published (it broke, or drains after a GOAWAY) is passed over for another, so no call waits
   * on a connection that is not there. Any thread.
   */
  static Node pick(
      List<Node> ready, Set<ConnectionKey> exclude, NodeSelector strategy, long nowNanos) {
    boolean another = !exclude.isEmpty();
    List<Node> from = ready;
    if (another) {
      from = new ArrayList<>(ready);
      from.removeIf(n -> exclude.contains(n.key));
    }
    while (!from.isEmpty()) {
      Node chosen =
          from.get(another ? strategy.pickAnother(from, nowNanos) : strategy.pick(from, nowNanos));
      if (connectionOf(chosen) != null) {
        return chosen;
      }
      if (from == ready) {
        from = new ArrayList<>(ready);
      }
      from.remove(chosen);
    }
    return null;
  }
}
