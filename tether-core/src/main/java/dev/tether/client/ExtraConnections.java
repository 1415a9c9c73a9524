package dev.tether.client;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The connections one key opens beside its own, only under load (more connections only when volume
 * demands): when a connection's calls in flight reach the limit its server announced, or its unsent
 * bytes pass the high-water mark, its waiting calls move to a sibling with room, else to a new
 * extra connection, at most {@code maxExtra} of them; each extra closes once it has had no call for
 * a while. Owned by the key's {@link ConnectionSupervisor}, on the control executor; callers only
 * read the lanes it publishes to the connections.
 */
final class ExtraConnections {
  private final SupervisorHost host;
  private final ConnectionKey key;
  private final int maxExtra;
  private final List<Lane> extras = new ArrayList<>();

  /** A copy of {@code extras} for readers on other threads (status, shutdown). */
  private volatile List<Lane> published = List.of();

  /** The extra being opened, or null: one at a time, so a burst opens what it needs and no more. */
  private Lane opening;

  /** Saturated connections waiting for the extra being opened. */
  private final Set<Lane> waiting = new LinkedHashSet<>();

  /** True once the runtime closes: no extra joins the lanes after that. */
  private boolean shut;

  ExtraConnections(SupervisorHost host, ConnectionKey key, int maxExtra) {
    this.host = host;
    this.key = key;
    this.maxExtra = maxExtra;
  }

  /**
   * {@code lane} (the key's own connection or an extra) has calls waiting for a slot: give them to
   * a sibling with room, or open an extra for them. On the control executor.
   */
  void onSaturated(Lane lane, RequestChannel primary, Candidate candidate) {
    host.control().assertInExecutor();
    Lane roomy = withRoom(lane, primary);
    if (roomy != null) {
      lane.handOverBacklog(roomy);
      return;
    }
    if (opening != null) {
      waiting.add(lane);
    } else if (extras.size() < maxExtra) {
      waiting.add(lane);
      open(primary, candidate);
    }
    // Else bounded: the backlog drains as answers free slots.
  }

  private void open(RequestChannel primary, Candidate candidate) {
    Lane extra = (Lane) host.newConnection(candidate, key);
    extra.markExtra();
    opening = extra;
    extra.connect();
    extra
        .ready()
        .whenComplete(
            (ready, failure) -> host.control().execute(() -> onOpened(extra, failure, primary)));
  }

  private void onOpened(Lane extra, Throwable failure, RequestChannel primary) {
    opening = null;
    List<Lane> saturated = List.copyOf(waiting);
    waiting.clear();
    if (failure != null) {
      return; // the saturated connections keep their backlogs; their answers free slots
    }
    if (shut) {
      // Ready as the runtime closed, after its drain took stock: calls handed to it would wait on
      // a connection nobody closes. It carries nothing yet, so it closes now.
      extra.close();
      return;
    }
    extras.add(extra);
    publish(primary);
    for (Lane lane : saturated) {
      lane.handOverBacklog(extra);
    }
  }

  /**
   * A connection of the key closed; an extra among them leaves the lanes. On the control executor.
   */
  void onClosed(RequestChannel c, RequestChannel primary) {
    if (extras.remove(c)) {
      publish(primary);
    }
  }

  /** The key's own connection changed (a reconnect): spread over the new one. */
  void onPrimaryChanged(RequestChannel primary) {
    if (!extras.isEmpty()) {
      publish(primary);
    }
  }

  /** The runtime closes: the extra being opened is called off. On the control executor. */
  void shutdown() {
    shut = true;
    if (opening != null) {
      opening.close();
    }
  }

  /** The extras open now, for status and shutdown; any thread. */
  List<Lane> all() {
    return published;
  }

  private void publish(RequestChannel primary) {
    published = List.copyOf(extras);
    Lane[] lanes = null;
    if (!extras.isEmpty()) {
      List<Lane> all = new ArrayList<>(extras.size() + 1);
      if (primary instanceof Lane p) {
        all.add(p);
      }
      all.addAll(extras);
      lanes = all.toArray(new Lane[0]);
    }
    if (primary instanceof Lane p) {
      p.spreadOver(lanes);
    }
    for (Lane e : extras) {
      e.spreadOver(lanes);
    }
  }

  private Lane withRoom(Lane except, RequestChannel primary) {
    if (primary instanceof Lane p && p != except && p.hasRoom()) {
      return p;
    }
    for (Lane e : extras) {
      if (e != except && e.hasRoom()) {
        return e;
      }
    }
    return null;
  }
}
