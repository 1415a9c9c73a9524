package dev.tether.admin;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tether.Endpoint;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.observe.ConnectionStatus;
import dev.tether.observe.NodeStatus;
import dev.tether.observe.ServerStatus;
import dev.tether.observe.TetherStatus;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.List;
import java.util.function.Supplier;

/**
 * What the page shows, as JSON: the snapshots of every observed runtime and server (the {@code
 * /status.json} shape of the observe package's snapshot records), the latest rates of calls made
 * and served, and a {@link #HISTORY_POINTS}-point history of them and of latency, one point per
 * {@link #sample()}. {@code sample} is called by one poller thread; {@code statusJson} from any
 * thread, since it only reads the runtimes and the history.
 */
final class StatusBoard {
  /** 60 s of history at one sample per 500 ms. */
  static final int HISTORY_POINTS = 120;

  /**
   * One point of the chart at a wall time: calls per second the observed clients made and their
   * mean latency, and calls per second the observed servers served (a process may do either or
   * both, so each is its own figure).
   */
  record Point(
      long wallMillis, double callsPerSecond, double latencyMicros, double servedPerSecond) {}

  /** No sample yet: every rate reads zero. */
  private static final Point NONE = new Point(0, 0, 0, 0);

  private final ObjectMapper json;
  private final Clock clock;
  private final List<Tether> clients;

  /**
   * The servers shown, asked at every snapshot: servers may come and go (a restarted one is a new
   * object).
   */
  private final Supplier<List<TetherServer>> servers;

  private final ArrayDeque<Point> history = new ArrayDeque<>(HISTORY_POINTS);

  /** Poller-only: calls finished on the clients' connections at the previous sample, and when. */
  private long previousCalls = -1;

  private long previousMillis;

  /** Poller-only: calls the servers had served at the previous sample. */
  private long previousServed = -1;

  StatusBoard(
      ObjectMapper json, Clock clock, List<Tether> clients, Supplier<List<TetherServer>> servers) {
    this.json = json;
    this.clock = clock;
    this.clients = List.copyOf(clients);
    this.servers = servers;
  }

  /**
   * Takes fresh snapshots, with the rates of the latest sample; {@code /status.json} answers this.
   */
  ObjectNode statusJson() {
    Point latest;
    synchronized (history) {
      latest = history.isEmpty() ? NONE : history.peekLast();
    }
    return render(snapshots())
        .put("callsPerSecond", latest.callsPerSecond())
        .put("servedPerSecond", latest.servedPerSecond());
  }

  private List<TetherStatus> snapshots() {
    return clients.stream().map(Tether::status).toList();
  }

  private ObjectNode render(List<TetherStatus> snapshots) {
    ObjectNode root = json.createObjectNode();
    ArrayNode clientArray = root.putArray("clients");
    for (TetherStatus s : snapshots) {
      clientArray.add(client(s));
    }
    ArrayNode serverArray = root.putArray("servers");
    for (TetherServer server : servers.get()) {
      serverArray.add(server(server));
    }
    return root;
  }

  private ObjectNode client(TetherStatus s) {
    ObjectNode c = json.createObjectNode();
    ArrayNode connections = c.putArray("connections");
    for (ConnectionStatus cs : s.connections()) {
      connections
          .addObject()
          .put("endpoint", cs.endpoint())
          .put("protocol", cs.protocol())
          .put("connectionId", cs.connectionId())
          .put("state", cs.state().name())
          .put("inFlight", cs.inFlight())
          .put("ageMillis", cs.age().toMillis())
          .put("callsOk", cs.callsOk())
          .put("callsFailed", cs.callsFailed())
          .put("lastError", cs.lastError())
          .put("streams", cs.streams());
    }
    ArrayNode nodes = c.putArray("nodes");
    for (NodeStatus n : s.nodes()) {
      nodes
          .addObject()
          .put("endpoint", n.endpoint())
          .put("health", n.health())
          .put("inFlight", n.inFlight())
          .put("latencyMicros", n.latencyMicros());
    }
    c.put("retries", s.retries());
    c.put("retryBudgetExhausted", s.retryBudgetExhausted());
    c.put("streamItemsSent", s.streamItems().sent());
    c.put("streamItemsReceived", s.streamItems().received());
    return c;
  }

  private ObjectNode server(TetherServer server) {
    ServerStatus s = server.status();
    ObjectNode o = json.createObjectNode();
    ArrayNode endpoints = o.putArray("endpoints");
    for (Endpoint e : server.endpoints()) {
      endpoints.add(e.toString());
    }
    ArrayNode protocols = o.putArray("protocols");
    for (ServerStatus.ProtocolShare p : s.byProtocol()) {
      protocols
          .addObject()
          .put("protocol", p.protocol())
          .put("connections", p.connections())
          .put("inFlight", p.inFlight())
          .put("served", p.served());
    }
    return o.put("serverId", server.serverId())
        .put("state", s.state())
        .put("connections", s.connections())
        .put("inFlight", s.inFlight())
        .put("served", s.served())
        .put("streams", s.streams())
        .put("detachedStreams", s.detachedStreams())
        .put("streamItemsSent", s.streamItems().sent())
        .put("streamItemsReceived", s.streamItems().received());
  }

  /**
   * Takes snapshots, adds a history point, and returns the page's update: the status plus the
   * newest point. Throughput made is the change in calls the clients' connections counted, served
   * the change in the servers' served counts; latency the mean of the nodes' recent averages, or,
   * for proxies without nodes, in-flight over throughput (Little's law), since core reports no
   * per-call latency.
   */
  ObjectNode sample() {
    List<TetherStatus> snapshots = snapshots();
    long now = clock.millis();
    long calls = 0;
    int inFlight = 0;
    double latencySum = 0;
    int latencyCount = 0;
    for (TetherStatus s : snapshots) {
      for (ConnectionStatus c : s.connections()) {
        calls += c.callsOk() + c.callsFailed();
        inFlight += c.inFlight();
      }
      for (NodeStatus n : s.nodes()) {
        if (n.latencyMicros() > 0) {
          latencySum += n.latencyMicros();
          latencyCount++;
        }
      }
    }
    long served = 0;
    for (TetherServer server : servers.get()) {
      served += server.status().served();
    }
    double rate = perSecond(previousCalls, calls, now);
    double servedRate = perSecond(previousServed, served, now);
    previousCalls = calls;
    previousServed = served;
    previousMillis = now;
    double latency =
        latencyCount > 0 ? latencySum / latencyCount : rate > 0 ? inFlight * 1e6 / rate : 0;
    Point p = new Point(now, rate, latency, servedRate);
    synchronized (history) {
      if (history.size() == HISTORY_POINTS) {
        history.removeFirst();
      }
      history.addLast(p);
    }
    ObjectNode update = render(snapshots);
    update.set("point", json.valueToTree(p));
    return update;
  }

  /**
   * The rate of a count that went from {@code previous} (-1: no sample yet) to {@code current}
   * since the previous sample. Connections that closed and servers that were replaced take their
   * counts with them: never a negative rate.
   */
  private double perSecond(long previous, long current, long nowMillis) {
    if (previous < 0 || nowMillis <= previousMillis) {
      return 0;
    }
    return Math.max(0, current - previous) * 1000.0 / (nowMillis - previousMillis);
  }

  /** The history, oldest first, for a page that just connected. */
  List<Point> history() {
    synchronized (history) {
      return List.copyOf(history);
    }
  }
}
