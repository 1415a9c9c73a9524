package dev.tether.micrometer;

import dev.tether.ConnectionState;
import dev.tether.observe.ConnectionStatus;
import dev.tether.observe.NodeStatus;
import dev.tether.observe.TetherEvent;
import dev.tether.observe.TetherStatus;
import io.micrometer.core.instrument.Timer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Turns a client runtime's successive snapshots into monotonic totals and gauges. Snapshots count
 * calls per connection, and a connection that closes leaves the snapshot: its count up to the last
 * snapshot that showed it is kept here, calls it finished after that are not seen. Written by the
 * one poller thread, read by scrapes: the totals are volatile, the snapshot an immutable record.
 */
final class ClientTally {
  private final Supplier<TetherStatus> source;

  /** Latest counts per connection ("endpoint|connectionId"), touched by the poller only. */
  private final Map<String, long[]> lastSeen = new HashMap<>();

  private volatile TetherStatus latest = new TetherStatus(List.of(), List.of(), 0, 0);
  private volatile long callsOk;
  private volatile long callsFailed;

  /** Set once by TetherMetrics before the first refresh. */
  Timer latency;

  ClientTally(Supplier<TetherStatus> source) {
    this.source = source;
  }

  /** The item totals of the latest snapshot, open streams included. */
  TetherEvent.StreamItems streamItems() {
    return latest.streamItems();
  }

  /** Takes one snapshot and adds what changed since the previous one. */
  void refresh() {
    TetherStatus now = source.get();
    long ok = callsOk;
    long failed = callsFailed;
    Map<String, long[]> present = new HashMap<>();
    for (ConnectionStatus c : now.connections()) {
      String key = c.endpoint() + '|' + c.connectionId();
      long[] before = lastSeen.getOrDefault(key, new long[2]);
      // A connection re-opened under the same key starts again at 0: all of its count is new.
      ok += c.callsOk() >= before[0] ? c.callsOk() - before[0] : c.callsOk();
      failed += c.callsFailed() >= before[1] ? c.callsFailed() - before[1] : c.callsFailed();
      present.put(key, new long[] {c.callsOk(), c.callsFailed()});
    }
    lastSeen.clear();
    lastSeen.putAll(present);
    callsOk = ok;
    callsFailed = failed;
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

  double callsOk() {
    return callsOk;
  }

  double callsFailed() {
    return callsFailed;
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

  double connectionsIn(ConnectionState state) {
    return latest.connections().stream().filter(c -> c.state() == state).count();
  }

  double nodesWith(String health) {
    return latest.nodes().stream().filter(n -> health.equals(n.health())).count();
  }
}
