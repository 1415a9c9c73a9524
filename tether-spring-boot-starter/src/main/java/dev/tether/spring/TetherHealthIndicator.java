package dev.tether.spring;

import dev.tether.Endpoint;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.observe.NodeStatus;
import dev.tether.observe.TetherStatus;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;

/**
 * DOWN when a node group of a load-balanced client bean has nodes and none of them takes calls
 * (ALIVE, or PROBING: back after an ejection); UP otherwise. A group is the endpoints of one {@code
 * tether.clients.<bean>} with {@code load-balancing} set; its nodes appear once it made its first
 * call. Details count each group's nodes by health, and the server's state when the context has one
 * (DRAINING once the context closes; the status stays as the groups make it, since the drain is the
 * shutdown itself).
 */
public final class TetherHealthIndicator implements HealthIndicator {
  /** The node healths that take calls. */
  private static final Set<String> SERVING = Set.of("ALIVE", "PROBING");

  private final Tether tether;

  /** Null when the context serves nothing. */
  private final TetherServer server;

  /** Bean name to the endpoints of its group, in grammar form. */
  private final Map<String, Set<String>> groups = new LinkedHashMap<>();

  TetherHealthIndicator(Tether tether, TetherServer server, Map<String, Proxy> balancedClients) {
    this.tether = tether;
    this.server = server;
    balancedClients.forEach((bean, proxy) -> groups.put(bean, endpointsOf(proxy)));
  }

  private static Set<String> endpointsOf(Proxy proxy) {
    Set<String> out = new HashSet<>();
    for (Endpoint e : proxy.endpoints()) {
      out.add(e.toString());
    }
    return out;
  }

  @Override
  public Health health() {
    TetherStatus status = tether.status();
    Health.Builder health = Health.up();
    for (Map.Entry<String, Set<String>> group : groups.entrySet()) {
      Map<String, Integer> byHealth = countByHealth(status.nodes(), group.getValue());
      if (!byHealth.isEmpty() && byHealth.keySet().stream().noneMatch(SERVING::contains)) {
        health.down();
      }
      health.withDetail(group.getKey(), byHealth);
    }
    if (server != null) {
      health.withDetail("server", server.status().state());
    }
    return health.withDetail("connections", status.connections().size()).build();
  }

  private static Map<String, Integer> countByHealth(List<NodeStatus> nodes, Set<String> endpoints) {
    Map<String, Integer> out = new TreeMap<>();
    for (NodeStatus n : nodes) {
      if (endpoints.contains(n.endpoint())) {
        out.merge(n.health(), 1, Integer::sum);
      }
    }
    return out;
  }
}
