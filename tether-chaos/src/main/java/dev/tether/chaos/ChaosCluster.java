package dev.tether.chaos;

import dev.tether.Endpoint;
import dev.tether.TetherServer;
import dev.tether.Topology;
import dev.tether.testkit.InProcessCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.LongSupplier;

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

  /**
   * The faults a cluster that elects in ZooKeeper plays: none that restarts a node (its membership
   * would not follow the new server) or announces a primary itself.
   */
  private static final Set<FaultKind> WITH_ZOOKEEPER =
      EnumSet.of(
          FaultKind.LEADER_CUT_OFF,
          FaultKind.FREEZE,
          FaultKind.RESET,
          FaultKind.LATENCY,
          FaultKind.SICK_NODE,
          FaultKind.HOSTILE_STREAM_CLIENT);

  /** The election in ZooKeeper; null when the cluster announces its primary itself. */
  private ZooKeeperElection election;

  /** Which node ran what when; null without the election, whose fault needs it. */
  private final ExecutionLog executions;

  private final LongSupplier nanoClock;
  private final List<LeaderCutOffs.LeaderCut> leaderCuts = new ArrayList<>();

  /** The node the running leader cut-off froze; -1 when none runs. */
  private int cutOff = -1;

  private final HostileClients hostileClients = new HostileClients();

  /** The view servers announce, restarted ones too; null until {@link #announcePrimary}. */
  private volatile Topology topology;

  private int primary;

  private ChaosCluster(
      InProcessCluster cluster,
      ChaosFeed feed,
      NodeHealth health,
      AtomicIntegerArray sick,
      AtomicIntegerArray misdeployed,
      ExecutionLog executions,
      LongSupplier nanoClock) {
    this.cluster = cluster;
    this.feed = feed;
    this.health = health;
    this.sick = sick;
    this.misdeployed = misdeployed;
    this.executions = executions;
    this.nanoClock = nanoClock;
  }

  /**
   * Starts {@code nodes} servers; each closes connections silent for {@code serverReaderIdle}
   * (shorter than the default 20 s, so orphans of frozen connections go within the run's checks),
   * and the odd-numbered ones tell their connections to move every {@link #ROTATING_AGE}.
   */
  public static ChaosCluster start(
      int nodes, Ledger ledger, NodeHealth health, Duration serverReaderIdle) {
    return start(nodes, ledger, health, serverReaderIdle, false, System::nanoTime);
  }

  /**
   * As {@link #start(int, Ledger, NodeHealth, Duration)}; with {@code zookeeper}, the nodes elect
   * their primary in a ZooKeeper of their own ({@link ZooKeeperElection}) instead of announcing the
   * one {@link #announcePrimary} names, and every execution is logged with its node and time on
   * {@code nanoClock}, for the leader cut-off's count of writes per server.
   */
  public static ChaosCluster start(
      int nodes,
      Ledger ledger,
      NodeHealth health,
      Duration serverReaderIdle,
      boolean zookeeper,
      LongSupplier nanoClock) {
    ExecutionLog log =
        zookeeper
            ? new ExecutionLog(
                (int) Math.min(Integer.MAX_VALUE - 8, 2L * ledger.capacity()), nanoClock)
            : null;
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
                    ChaosService.NAME,
                    new ChaosService(
                        id -> {
                          ledger.executed(id);
                          if (log != null) {
                            log.record(i, id);
                          }
                        },
                        () -> sick.get(i) == 1));
              }
              builder
                  .streamService(ChaosFeed.NAME, feed)
                  .streamService(ChaosFlood.NAME, new ChaosFlood())
                  .property("tether.server.readerIdle", serverReaderIdle.toMillis() + "ms");
              if (i % 2 == 1) {
                // Rotations all through the run, under every other fault: the clients'
                // connections to these nodes are replaced every ROTATING_AGE (±10%), with the
                // ledger watching for a lost or repeated call.
                builder.maxConnectionAge(ROTATING_AGE).random(new java.util.Random(i));
              }
              Topology view = self[0] == null ? null : self[0].topology;
              if (view != null) {
                builder.topology(view);
              }
            });
    self[0] = new ChaosCluster(cluster, feed, health, sick, misdeployed, log, nanoClock);
    if (zookeeper) {
      try {
        self[0].election = ZooKeeperElection.start(self[0].servers());
      } catch (RuntimeException e) {
        self[0].close();
        throw e;
      }
    }
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

  /**
   * Sets the first primary: announces {@code node}, or, when the cluster elects in ZooKeeper, waits
   * until the election settled (whoever it elected).
   */
  public void settlePrimary(int node) {
    if (election == null) {
      announcePrimary(node);
    } else {
      election.awaitSettled();
      primary = election.leader();
    }
  }

  /** Each leader cut-off so far: who was deposed, who followed, when. */
  public List<LeaderCutOffs.LeaderCut> leaderCuts() {
    return List.copyOf(leaderCuts);
  }

  /** The hostile stream clients' attacks so far and what the servers did. */
  public List<HostileClients.Attack> hostileAttacks() {
    return hostileClients.attacks();
  }

  /** Which node ran what when; null unless the cluster elects in ZooKeeper. */
  ExecutionLog executions() {
    return executions;
  }

  /** Injects the start of {@code step}'s fault. */
  public void begin(FaultStep step) {
    int i = step.node();
    if (step.kind().needsZooKeeper() && election == null) {
      throw new IllegalStateException(step.kind().label + " needs a cluster electing in ZooKeeper");
    }
    if (election != null && !WITH_ZOOKEEPER.contains(step.kind())) {
      throw new IllegalStateException(
          step.kind().label + " is not played on a cluster electing in ZooKeeper");
    }
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
      case LEADER_CUT_OFF -> {
        int leader = election.leader();
        if (leader < 0) {
          throw new IllegalStateException("no member leads: nothing to cut off");
        }
        long cut = nanoClock.getAsLong();
        election.cutOff(leader);
        cutOff = leader;
        int next = election.awaitNewLeaderAnnounced(leader);
        primary = next;
        leaderCuts.add(new LeaderCutOffs.LeaderCut(leader, cut, next, nanoClock.getAsLong()));
      }
      case HOSTILE_STREAM_CLIENT -> {
        // Straight to the server, past its fault proxy: what it holds is the server's own.
        Endpoint server = cluster.server(i).endpoints().get(0);
        hostileClients.begin(i, server.host(), server.port());
      }
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
      case HOSTILE_STREAM_CLIENT -> hostileClients.heal();
      case LEADER_CUT_OFF -> {
        if (cutOff >= 0) {
          election.reconnect(cutOff);
          cutOff = -1;
        }
      }
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
    if (election != null) {
      election.close();
    }
  }
}
