package dev.tether.client;

import dev.tether.Endpoint;
import dev.tether.protocol.Welcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The newest cluster view each group of proxies has heard (seed 002): the primary and alternates
 * a server announced in WELCOME, keyed by the endpoints the proxies were made with. Once known, a
 * view replaces those endpoints, primary first, in failover order; the configured endpoints stay
 * the way back to a connection manager when the whole view is down.
 */
final class TopologyViews {
  private final Map<List<Endpoint>, List<Endpoint>> views = new ConcurrentHashMap<>();

  /** The failover order to use for these seeds, or null when no server announced one. */
  List<Endpoint> failoverOrder(List<Endpoint> seeds) {
    return views.get(seeds);
  }

  /** Keeps the view announced by the server behind {@code connection}, if it announced one. */
  void learn(List<Endpoint> seeds, RequestChannel connection) {
    if (!(connection instanceof ClientConnection c) || c.welcome() == null) {
      return;
    }
    Welcome w = c.welcome();
    if (w.primary().isEmpty()) {
      return;
    }
    List<Endpoint> order = new ArrayList<>();
    order.add(Endpoint.parse(w.primary()));
    for (String a : w.alternates()) {
      order.add(Endpoint.parse(a));
    }
    views.put(seeds, List.copyOf(order));
  }

  /** True when {@code connection} goes to a server other than the primary of the known view. */
  boolean isAlternate(List<Endpoint> seeds, RequestChannel connection) {
    List<Endpoint> order = views.get(seeds);
    return order != null && !order.isEmpty() && !goesTo(connection, order.get(0));
  }

  /**
   * True when a view is known and {@code connection}'s server is neither its primary nor one of
   * its alternates: a connection manager (seed 002), which only tells where the cluster is.
   */
  boolean isOutsideView(List<Endpoint> seeds, RequestChannel connection) {
    List<Endpoint> order = views.get(seeds);
    if (order == null) {
      return false;
    }
    for (Endpoint member : order) {
      if (goesTo(connection, member)) {
        return false;
      }
    }
    return true;
  }

  private static boolean goesTo(RequestChannel connection, Endpoint endpoint) {
    return connection.remoteAddress() instanceof java.net.InetSocketAddress remote
        && remote.getPort() == endpoint.port()
        && (remote.getHostString().equals(endpoint.host())
            || (remote.getAddress() != null && remote.getAddress().getHostAddress().equals(endpoint.host())));
  }
}
