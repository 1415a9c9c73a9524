package dev.tether.chaos;

import dev.tether.TetherServer;
import dev.tether.Topology;
import dev.tether.testkit.InProcessCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * The chaos run's servers: an {@link InProcessCluster} of real TetherServers on loopback, each
 * behind a FaultProxy, all running {@link ChaosService} over one ledger and the stream service
 * {@link ChaosFeed}, and announcing a primary and its alternates (the client-reroute behaviour)
 * that primary failovers move. A node can be made sick (its service throws on every call) or
 * restarted without the call service (misdeployed). Faults go through {@link #begin} and {@link
 * #heal}, which keep {@link NodeHealth} true. Used by the fault driver's thread only, apart from
 * {@link #servers()} and the configure callback, which reads the topology when a node restarts.
 */
public final class ChaosCluster implements AutoCloseable {
  /** How long a drained node may take to finish its calls. */
  static final Duration DRAIN_GRACE = Duration.ofSeconds(3);

  /** How long a rolling restart waits for clients to reach a restarted node before the next. */
  static final Duration READY_PATIENCE = Duration.ofSeconds(5);

  /** The maximum connection age of the odd-numbered nodes; the even ones never age. */
  public static final Duration ROTATING_AGE = Duration.ofMillis(1500);

  private final InProcessCluster cluster;
  private final ChaosFeed feed;
  private final NodeHealth health;

  /** Per node, 1 while it is sick: its service throws on every call. */
  private final AtomicIntegerArray sick;

  /** Per node, 1 while it runs a build without the call service (read when it restarts). */
  private final AtomicIntegerArray misdeployed;

  /** The view servers announce, restarted ones too; null until {@link #announcePrimary}. */
  private volatile Topology topology;

  private int primary;

  private ChaosCluster(
      InProcessCluster cluster,
      ChaosFeed feed,
      NodeHealth health,
      AtomicIntegerArray sick,
      AtomicIntegerArray misdeployed) {
    this.cluster = cluster;
    this.feed = feed;
    this.health = health;
    this.sick = sick;
    this.misdeployed = misdeployed;
  }

  /**
   * Starts {@code nodes} servers; each closes connections silent for {@code serverReaderIdle}
   * (shorter than the default 20 s, so orphans of frozen connections go within the run's checks),
   * and the odd-numbered ones tell their connections to move every {@link #ROTATING_AGE}.
   */
  public static ChaosCluster start(
      int nodes, Ledger ledger, NodeHealth health, Duration serverReaderIdle) {
    ChaosFeed feed = new ChaosFeed(StreamLoad.TICK);
    ChaosCluster[] self = new ChaosCluster[1];
    AtomicIntegerArray sick = new AtomicIntegerArray(nodes);
    AtomicIntegerArray misdeployed = new AtomicIntegerArray(nodes);
    InProcessCluster cluster =
        InProcessCluster.start(
            nodes,
            (i, builder) -> {
              if (misdeployed.get(i) == 0) {
                builder.service(
                    ChaosService.NAME, new ChaosService(ledger::executed, () -> sick.get(i) == 1));
              }
              builder
                  .streamService(ChaosFeed.NAME, feed)
                  .property("tether.server.readerIdle", serverReaderIdle.toMillis() + "ms");
              if (i % 2 == 1) {
                // Rotations all through the run, under every other fault: the clients' connections
                // to these
                // nodes are replaced every ROTATING_AGE (±10%), with the ledger watching for a lost
                // or repeated call.
                builder.maxConnectionAge(ROTATING_AGE).random(new java.util.Random(i));
              }
              Topology view = self[0] == null ? null : self[0].topology;
              if (view != null) {
                builder.topology(view);
              }
            });
    self[0] = new ChaosCluster(cluster, feed, health, sick, misdeployed);
    return self[0];
  }

  public int size() {
    return cluster.size();
  }

  /** Every node's endpoint (its fault proxy's), in index order. */
  public List<String> endpoints() {
    return cluster.endpoints();
  }

  /** {@code service:} every node's endpoint, through the fault proxies. */
  public String proxyString(String service) {
    return cluster.proxyString(service);
  }

  /** The running servers (the last one of a node that is down). */
  public List<TetherServer> servers() {
    List<TetherServer> out = new ArrayList<>();
    for (int i = 0; i < cluster.size(); i++) {
      out.add(cluster.server(i));
    }
    return out;
  }

  /** Whether node {@code i}'s server runs (frozen nodes run). */
  public boolean isRunning(int i) {
    return cluster.isUp(i);
  }

  /**
   * Makes {@code node} the primary every server announces from now on, the others its alternates in
   * ring order after it: what a leader election would announce.
   */
  public void announcePrimary(int node) {
    List<String> alternates = new ArrayList<>();
    for (int k = 1; k < cluster.size(); k++) {
      alternates.add(cluster.endpoint((node + k) % cluster.size()));
    }
    Topology view = Topology.of(cluster.endpoint(node), alternates);
    topology = view;
    primary = node;
    for (int i = 0; i < cluster.size(); i++) {
      if (cluster.isUp(i)) {
        cluster.server(i).setTopology(view);
      }
    }
  }

  /** Injects the start of {@code step}'s fault. */
  public void begin(FaultStep step) {
    int i = step.node();
    switch (step.kind()) {
      case KILL -> {
        health.markDown(i);
        cluster.kill(i);
      }
      case FREEZE -> {
        health.markDown(i);
        cluster.freeze(i);
      }
      case RESET -> cluster.faultProxy(i).resetAll();
      case LATENCY -> cluster.faultProxy(i).latency(Duration.ofMillis(step.latencyMillis()));
      case DRAIN -> {
        health.markDown(i);
        cluster.stop(i, DRAIN_GRACE);
      }
      case ROLLING_RESTART -> {
        for (int k = 0; k < cluster.size(); k++) {
          int node = (i + k) % cluster.size();
          health.markDown(node);
          cluster.stop(node, DRAIN_GRACE);
          cluster.restart(node);
          awaitReady(node);
          health.markUp(node);
        }
      }
      case PRIMARY_FAILOVER -> {
        health.markDown(i);
        cluster.kill(i);
        announcePrimary((i + 1) % cluster.size());
      }
      case PRIMARY_HANDOVER -> announcePrimary((i + 1) % cluster.size());
      case SICK_NODE -> sick.set(i, 1);
      case MISDEPLOYED_RESTART -> {
        health.markDown(i);
        cluster.stop(i, DRAIN_GRACE);
        misdeployed.set(i, 1);
        cluster.restart(i);
      }
    }
  }

  /** Ends {@code step}'s fault: the node runs, and its network flows, again. */
  public void heal(FaultStep step) {
    int i = step.node();
    switch (step.kind()) {
      case KILL, DRAIN, PRIMARY_FAILOVER -> {
        cluster.restart(i);
        health.markUp(i);
      }
      case FREEZE -> {
        cluster.unfreeze(i);
        health.markUp(i);
      }
      case LATENCY -> cluster.faultProxy(i).pass();
      case SICK_NODE -> sick.set(i, 0);
      case MISDEPLOYED_RESTART -> {
        cluster.stop(i, DRAIN_GRACE);
        misdeployed.set(i, 0);
        cluster.restart(i);
        health.markUp(i);
      }
      case RESET, ROLLING_RESTART, PRIMARY_HANDOVER -> {
        // Nothing lasts.
      }
    }
  }

  /**
   * Waits (at most {@link #READY_PATIENCE}) until clients have connected to node {@code i} again,
   * as a rolling restart waits for a node's readiness before it takes down the next: without it,
   * five drains in 50 ms leave every node dead in the clients' eyes at once, though only one was
   * ever down.
   */
  private void awaitReady(int i) {
    long giveUp = System.nanoTime() + READY_PATIENCE.toNanos();
    while (cluster.server(i).status().connections() == 0 && System.nanoTime() - giveUp < 0) {
      try {
        TimeUnit.MILLISECONDS.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** The node announced as primary now. */
  public int primary() {
    return primary;
  }

  @Override
  public void close() {
    cluster.close();
    feed.close();
  }
}
