package dev.tether.cluster;

import dev.tether.client.ConnectionKey;
import dev.tether.client.RequestChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The services a group's nodes answered they do not have (SERVICE_NOT_FOUND or OPERATION_NOT_FOUND:
 * a node deployed with another build). Such a node is skipped for that service while the connection
 * that answered so is still its connection, for at most {@link #SKIP}: a node redeployed with the
 * right build comes back on a new connection, and one fixed in place gets its calls again after a
 * while. When every node a call may take lacks the service, they are picked all the same, so the
 * call hears their answers and fails naming them. Gaps are recorded on the control executor and
 * published whole; pickers read them on any thread.
 */
final class ServiceGaps {
  /** How long a node is skipped for a service it answered it lacks, at most. */
  static final Duration SKIP = Duration.ofSeconds(30);

  /** One node's missing service, as the connection {@code answeredOn} told it. */
  private record Gap(ConnectionKey key, String service, RequestChannel answeredOn, long until) {}

  /** Few entries (a misdeployed node per service); replaced whole. */
  private volatile List<Gap> gaps = List.of();

  /**
   * {@code node} answered on its current connection that it lacks {@code service}; control
   * executor.
   */
  void record(Node node, String service, long nowNanos) {
    List<Gap> next = new ArrayList<>(gaps.size() + 1);
    for (Gap g : gaps) {
      boolean replaced = g.key().equals(node.key) && g.service().equals(service);
      if (!replaced && nowNanos - g.until() < 0) {
        next.add(g);
      }
    }
    next.add(new Gap(node.key, service, node.supervisor.current(), nowNanos + SKIP.toNanos()));
    gaps = List.copyOf(next);
  }

  /**
   * {@code live} without the nodes that lack {@code service} now; {@code live} itself when none
   * does, or when every one does. Any thread.
   */
  List<Node> serving(List<Node> live, String service, long nowNanos) {
    List<Gap> known = gaps;
    if (known.isEmpty()) {
      return live;
    }
    List<Node> serving = null;
    for (int i = 0; i < live.size(); i++) {
      Node n = live.get(i);
      boolean lacks = lacks(known, n, service, nowNanos);
      if (lacks && serving == null) {
        serving = new ArrayList<>(live.subList(0, i));
      } else if (!lacks && serving != null) {
        serving.add(n);
      }
    }
    return serving == null || serving.isEmpty() ? live : serving;
  }

  private static boolean lacks(List<Gap> known, Node n, String service, long nowNanos) {
    for (Gap g : known) {
      if (g.key().equals(n.key)
          && g.service().equals(service)
          && nowNanos - g.until() < 0
          && g.answeredOn() == n.supervisor.current()) {
        return true;
      }
    }
    return false;
  }
}
