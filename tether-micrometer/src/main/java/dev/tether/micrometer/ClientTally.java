package dev.tether.micrometer;

import dev.tether.ConnectionState;
import dev.tether.observe.ConnectionStatus;
import dev.tether.observe.NodeStatus;
import dev.tether.observe.ServerStatus;
import dev.tether.observe.TetherEvent;
import dev.tether.observe.TetherStatus;
import io.micrometer.core.instrument.Timer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Turns a client runtime's successive snapshots into monotonic totals and gauges. Snapshots count
 * calls per connection, and a connection that closes leaves the snapshot: its count up to the last
 * snapshot that showed it is kept here, calls it finished after that are not seen. Written by the
 * one poller thread, read by scrapes: the totals are volatile, the snapshot an immutable record.
 */
final class ClientTally {
  private final Supplier<TetherStatus> source;

  /**
   * Latest counts per connection ("protocol|endpoint|connectionId"), touched by the poller only.
   */
  private final Map<String, long[]> lastSeen = new HashMap<>();

  /** Calls answered OK and failed, per protocol the connections spoke; written by the poller. */
  private final Map<String, Totals> totals = new ConcurrentHashMap<>();

  /** Hears of each protocol the first time a snapshot shows a connection speaking it. */
  private final Consumer<String> newProtocol;

  private volatile TetherStatus latest = new TetherStatus(List.of(), List.of(), 0, 0);

  /** One protocol's totals: written by the poller, read by scrapes. */
  private static final class Totals {
    volatile long ok;
    volatile long failed;
  }

  /** Set once by TetherMetrics before the first refresh. */
  Timer latency;

  /**
   * {@code newProtocol} hears of each protocol as it first appears (Tether's own is known from the
   * start), on the poller's thread, before its totals are read.
   */
  ClientTally(Supplier<TetherStatus> source, Consumer<String> newProtocol) {
    this.source = source;
    this.newProtocol = newProtocol;
    totals.put(ServerStatus.TETHER, new Totals());
  }

  /** The item totals of the latest snapshot, open streams included. */
  TetherEvent.StreamItems streamItems() {
    return latest.streamItems();
  }

  /** Takes one snapshot and adds what changed since the previous one. */
  void refresh() {
    TetherStatus now = source.get();
    Map<String, long[]> present = new HashMap<>();
    for (ConnectionStatus c : now.connections()) {
      String key = c.protocol() + '|' + c.endpoint() + '|' + c.connectionId();
      long[] before = lastSeen.getOrDefault(key, new long[2]);
      Totals t = totalsOf(c.protocol());
      // A connection re-opened under the same key starts again at 0: all of its count is new.
      t.ok += c.callsOk() >= before[0] ? c.callsOk() - before[0] : c.callsOk();
      t.failed += c.callsFailed() >= before[1] ? c.callsFailed() - before[1] : c.callsFailed();
      present.put(key, new long[] {c.callsOk(), c.callsFailed()});
    }
    lastSeen.clear();
    lastSeen.putAll(present);
    latest = now;
    recordLatency(now);
  }

  /**
   * Core gives no per-call latency: the timer gets each node's recent average, one sample per
   * refresh, so its percentiles spread over time and nodes, not over calls.
   */
  private void recordLatency(TetherStatus now) {
    for (NodeStatus n : now.nodes()) {
      if (n.latencyMicros() > 0) {
        latency.record((long) (n.latencyMicros() * 1000), TimeUnit.NANOSECONDS);
      }
    }
  }

  private Totals totalsOf(String protocol) {
    Totals t = totals.get(protocol);
    if (t == null) {
      t = new Totals();
      totals.put(protocol, t);
      newProtocol.accept(protocol);
    }
    return t;
  }

  double callsOk(String protocol) {
    return totals.get(protocol).ok;
  }

  double callsFailed(String protocol) {
    return totals.get(protocol).failed;
  }

  double retries() {
    return latest.retries();
  }

  double budgetRefusals() {
    return latest.retryBudgetExhausted();
  }

  double inFlight() {
    int sum = 0;
    for (ConnectionStatus c : latest.connections()) {
      sum += c.inFlight();
    }
    return sum;
  }

  double streams() {
    int sum = 0;
    for (ConnectionStatus c : latest.connections()) {
      sum += c.streams();
    }
    return sum;
  }

  double connectionsIn(ConnectionState state, String protocol) {
    return latest.connections().stream()
        .filter(c -> c.state() == state && c.protocol().equals(protocol))
        .count();
  }

  double nodesWith(String health) {
    return latest.nodes().stream().filter(n -> health.equals(n.health())).count();
  }
}
