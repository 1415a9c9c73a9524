package dev.tether.client;

import dev.tether.Endpoint;
import dev.tether.Topology;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The newest cluster view each group of proxies has heard (seed 002): the primary and alternates
 * a server announced (in WELCOME, or later in a TOPOLOGY frame), keyed by the endpoints the
 * proxies were made with. Once known, a view replaces those endpoints, primary first, in
 * failover order; the configured endpoints stay the way back to a connection manager when the
 * whole view is down.
 */
final class TopologyViews {
  /**
   * A learned failover order and the connection it came from, whose later announcements replace it.
   * The source is kept only until another connection's view replaces the entry.
   */
  private record View(List<Endpoint> order, RequestChannel source) {}

  private final Map<List<Endpoint>, View> views = new ConcurrentHashMap<>();

  /** The failover order to use for these seeds, or null when no server announced one. */
  List<Endpoint> failoverOrder(List<Endpoint> seeds) {
    View v = views.get(seeds);
    return v == null ? null : v.order();
  }

  /** Keeps the view announced by the server behind {@code connection}, if it announced one. */
  void learn(List<Endpoint> seeds, RequestChannel connection) {
    Topology t = announcedBy(connection);
    if (t != null) {
      views.put(seeds, new View(t.failoverOrder(), connection));
    }
  }

  /**
   * {@code connection}'s server announced a new view while connected: every view learned from
   * that connection takes it. A server that now announces none leaves the views as they are, as
   * a WELCOME without a view does.
   */
  void relearn(RequestChannel connection) {
    Topology t = announcedBy(connection);
    if (t == null) {
      return;
    }
    List<Endpoint> order = t.failoverOrder();
    views.replaceAll((seeds, v) -> v.source() == connection ? new View(order, connection) : v);
  }

  private static Topology announcedBy(RequestChannel connection) {
    return connection instanceof ClientConnection c ? c.topology() : null;
  }

  /** True when {@code connection} goes to a server other than the primary of the known view. */
  boolean isAlternate(List<Endpoint> seeds, RequestChannel connection) {
    List<Endpoint> order = failoverOrder(seeds);
    return order != null && !order.isEmpty() && !goesTo(connection, order.get(0));
  }

  /**
   * True when a view is known and {@code connection}'s server is neither its primary nor one of
   * its alternates: a connection manager (seed 002), which only tells where the cluster is.
   */
  boolean isOutsideView(List<Endpoint> seeds, RequestChannel connection) {
    List<Endpoint> order = failoverOrder(seeds);
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
