package dev.tether.client;

import dev.tether.Endpoint;
import dev.tether.Topology;
import dev.tether.internal.SerialExecutor;
import java.net.InetSocketAddress;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.WeakHashMap;

/**
 * The newest cluster view each group of proxies has heard (the client-reroute behaviour): the
 * primary and alternates a server announced (in WELCOME, or later in a TOPOLOGY frame), keyed by
 * the endpoints the proxies were made with. Once known, a view replaces those endpoints, primary
 * first, in failover order; the configured endpoints stay the way back to a connection manager when
 * the whole view is down.
 *
 * <p>A view names the primary, and proxies follow it: the bindings that cached a connection under a
 * view are remembered, and when a later announcement names another primary, those whose connection
 * does not go to it forget it, so their next call finds the new primary (calls in flight finish
 * where they are; sessions keep their own connection).
 *
 * <p>Each view carries its election's epoch, and a view never gives way to one of a smaller epoch:
 * a deposed primary that has not heard yet, or a member that lags, cannot draw proxies back, and
 * when members announce different views the highest wins, also for a proxy made with other seeds
 * that learns a lagging member's view first. Views of the same epoch replace each other as they
 * arrive (how the alternates of one election change, and how views from no election, all of epoch
 * 0, behave).
 *
 * <p>The views belong to the runtime's control executor: every write runs there (a write from
 * another thread hops), and readers on any thread read the immutable map it last published.
 */
final class TopologyViews {
  /**
   * A learned failover order, its election's epoch, and the connection it came from, whose later
   * announcements replace it. The source is kept only until another connection's view replaces the
   * entry.
   */
  private record View(List<Endpoint> order, long epoch, RequestChannel source) {
    View(Topology announced, RequestChannel source) {
      this(announced.failoverOrder(), announced.epoch(), source);
    }

    /** True when {@code next} may replace this view: it comes from this election or a later one. */
    boolean yieldsTo(View next) {
      return next.epoch() >= epoch;
    }
  }

  private final SerialExecutor control;

  /**
   * Replaced whole on the control executor, never changed in place; volatile so readers on any
   * thread see each published map complete.
   */
  private volatile Map<List<Endpoint>, View> views = Map.of();

  /**
   * The bindings that cached a connection under each seed list's view; control executor only. Weak,
   * so a proxy the application dropped is not kept for its seeds' sake.
   */
  private final Map<List<Endpoint>, Set<ConnectionCache>> followers = new HashMap<>();

  TopologyViews(SerialExecutor control) {
    this.control = control;
  }

  /**
   * The failover order to use for these seeds, or null when no server announced one. Any thread.
   */
  List<Endpoint> failoverOrder(List<Endpoint> seeds) {
    View v = views.get(seeds);
    return v == null ? null : v.order();
  }

  /**
   * Keeps the view announced by the server behind {@code connection}, if it announced one, and
   * returns the failover order in force for {@code seeds} from now on (null when none is): the
   * caller decides on that value rather than on a read that another thread's turn on the control
   * executor may not have caught up with yet. Any thread.
   */
  List<Endpoint> learn(List<Endpoint> seeds, RequestChannel connection) {
    Topology t = connection.topology();
    if (t == null) {
      return failoverOrder(seeds);
    }
    View learned = newestOfItsCluster(new View(t, connection), connection);
    View now = views.get(seeds);
    if (now != null && !now.yieldsTo(learned)) {
      // An older election's view: the one in force stays.
      return now.order();
    }
    onControl(() -> put(seeds, learned));
    return learned.order();
  }

  /**
   * {@code announced}, or the view of a later election that another seed list learned and that
   * names {@code connection}'s server: a proxy made with other seeds must not follow a lagging
   * member's view when the runtime knows a later one of the same cluster.
   */
  private View newestOfItsCluster(View announced, RequestChannel connection) {
    View newest = announced;
    for (View v : views.values()) {
      if (v.epoch() > newest.epoch() && !isOutside(v.order(), connection)) {
        newest = v;
      }
    }
    return newest;
  }

  /**
   * {@code connection}'s server announced a new view while connected: every view learned from that
   * connection takes it, and so does every view naming its server when the news is an elected view
   * (epoch above 0); a view of a later election stays. A server that now announces none leaves the
   * views as they are, as a WELCOME without a view does. Any thread.
   */
  void relearn(RequestChannel connection) {
    onControl(
        () -> {
          Topology t = connection.topology();
          if (t != null) {
            replaceFrom(connection, t);
          }
        });
  }

  /**
   * Runs a write now when already on the control executor, so its caller reads it next; hops
   * otherwise.
   */
  private void onControl(Runnable write) {
    if (control.inExecutor()) {
      write.run();
    } else {
      control.execute(write);
    }
  }

  /**
   * {@code binding} cached {@code connection} for {@code seeds} while {@code settledUnder} was the
   * view in force (null: none): it follows the view's primary from now on. A primary that changed
   * in between is applied at once. Any thread.
   */
  void follow(
      List<Endpoint> seeds,
      ConnectionCache binding,
      RequestChannel connection,
      List<Endpoint> settledUnder) {
    if (settledUnder == null) {
      return;
    }
    onControl(
        () -> {
          followers
              .computeIfAbsent(seeds, k -> Collections.newSetFromMap(new WeakHashMap<>()))
              .add(binding);
          List<Endpoint> now = failoverOrder(seeds);
          if (now != null && !Objects.equals(primary(now), primary(settledUnder))) {
            forgetUnlessOnPrimary(binding, connection, now);
          }
        });
  }

  private void put(List<Endpoint> seeds, View v) {
    control.assertInExecutor();
    Map<List<Endpoint>, View> next = new HashMap<>(views);
    View before = next.get(seeds);
    if (before != null && !before.yieldsTo(v)) {
      // A later election's view arrived between the caller's check and this turn.
      return;
    }
    next.put(seeds, v);
    publish(next, before == null ? Map.of() : Map.of(seeds, before));
  }

  private void replaceFrom(RequestChannel connection, Topology announced) {
    control.assertInExecutor();
    View news = new View(announced, connection);
    Map<List<Endpoint>, View> next = new HashMap<>(views);
    Map<List<Endpoint>, View> replaced = new HashMap<>();
    next.replaceAll(
        (seeds, v) -> {
          // An elected view counts from any member, not only the one whose connection taught the
          // view: a primary stepping down must reach every proxy that follows it, and the epoch
          // keeps a lagging member from undoing that. A view of no election has no such guard.
          boolean concerned =
              v.source() == connection || (news.epoch() > 0 && !isOutside(v.order(), connection));
          if (!concerned || !v.yieldsTo(news)) {
            return v;
          }
          replaced.put(seeds, v);
          return news;
        });
    publish(next, replaced);
  }

  /**
   * Publishes {@code next}; the followers of each view in {@code before} whose primary moved leave
   * it.
   */
  private void publish(Map<List<Endpoint>, View> next, Map<List<Endpoint>, View> before) {
    views = Map.copyOf(next);
    before.forEach(
        (seeds, old) -> {
          List<Endpoint> now = next.get(seeds).order();
          Set<ConnectionCache> bindings = followers.get(seeds);
          if (bindings != null && !Objects.equals(primary(now), primary(old.order()))) {
            for (ConnectionCache b : List.copyOf(bindings)) {
              forgetUnlessOnPrimary(b, b.cachedConnection(), now);
            }
          }
        });
  }

  private static void forgetUnlessOnPrimary(
      ConnectionCache binding, RequestChannel connection, List<Endpoint> order) {
    Endpoint primary = primary(order);
    if (connection != null && primary != null && !goesTo(connection, primary)) {
      binding.forget(connection);
    }
  }

  private static Endpoint primary(List<Endpoint> order) {
    return order.isEmpty() ? null : order.get(0);
  }

  /** True when {@code connection} goes to a server other than the primary of the known view. */
  boolean isAlternate(List<Endpoint> seeds, RequestChannel connection) {
    return isAlternateIn(failoverOrder(seeds), connection);
  }

  /**
   * True when {@code order} is a view and {@code connection} goes to a server other than its
   * primary.
   */
  static boolean isAlternateIn(List<Endpoint> order, RequestChannel connection) {
    return order != null && !order.isEmpty() && !goesTo(connection, order.get(0));
  }

  /**
   * True when {@code order} is a view and {@code connection}'s server is neither its primary nor
   * one of its alternates: a connection manager, which only tells where the cluster is.
   */
  static boolean isOutside(List<Endpoint> order, RequestChannel connection) {
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
    return connection.remoteAddress() instanceof InetSocketAddress remote
        && remote.getPort() == endpoint.port()
        && (remote.getHostString().equals(endpoint.host())
            || (remote.getAddress() != null
                && remote.getAddress().getHostAddress().equals(endpoint.host())));
  }
}
