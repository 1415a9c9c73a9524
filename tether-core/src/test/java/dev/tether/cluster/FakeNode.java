package dev.tether.cluster;

import dev.tether.Endpoint;
import java.util.ArrayList;
import java.util.List;

/** A node whose load and latency a test sets by hand. */
final class FakeNode implements NodeStats {
  private final Endpoint endpoint;
  int inFlight;
  double latencyEwmaNanos;
  long lastPick;

  FakeNode(int port) {
    this.endpoint = new Endpoint("tcp", "127.0.0.1", port, null, false);
  }

  /** {@code count} idle nodes on ports 7001, 7002, ... */
  static List<FakeNode> nodes(int count) {
    List<FakeNode> nodes = new ArrayList<>();
    for (int i = 1; i <= count; i++) {
      nodes.add(new FakeNode(7000 + i));
    }
    return nodes;
  }

  @Override
  public Endpoint endpoint() {
    return endpoint;
  }

  @Override
  public int inFlight() {
    return inFlight;
  }

  @Override
  public double latencyEwmaNanos() {
    return latencyEwmaNanos;
  }

  @Override
  public long lastPick() {
    return lastPick;
  }

  @Override
  public void picked(long turn) {
    lastPick = turn;
  }

  @Override
  public String toString() {
    return "node " + endpoint.port();
  }
}
