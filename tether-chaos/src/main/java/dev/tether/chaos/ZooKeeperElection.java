package dev.tether.chaos;

import dev.tether.TetherServer;
import dev.tether.Topology;
import dev.tether.testkit.FaultProxy;
import dev.tether.zookeeper.ClusterMembership;
import dev.tether.zookeeper.LoopbackZooKeeper;
import dev.tether.zookeeper.ZooKeeperRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.apache.curator.test.TestingServer;

/**
 * The chaos cluster's leader election in ZooKeeper, for the leader cut-off fault: a real ZooKeeper
 * server in this JVM, and per node its own registry (session) reaching it through its own
 * FaultProxy, every node in {@code joinCluster}, so one node's link can freeze while its clients
 * still reach it. The members announce the elected primary and its alternates in place of {@link
 * ChaosCluster#announcePrimary}. Used by the fault driver's thread.
 */
final class ZooKeeperElection implements AutoCloseable {
  /**
   * Short, so that a cut-off leader's session ends within the run; long enough that a busy machine
   * does not suspend healthy members (as tether-zookeeper's fencing test has it).
   */
  static final Duration SESSION = Duration.ofSeconds(3);

  /** How long the election may take to settle, or to announce a new leader after a cut-off. */
  static final Duration PATIENCE = Duration.ofSeconds(15);

  private static final String CLUSTER = "chaos";

  private final TestingServer zooKeeper;
  private final List<FaultProxy> links = new ArrayList<>();
  private final List<ZooKeeperRegistry> registries = new ArrayList<>();
  private final List<ClusterMembership> members = new ArrayList<>();
  private final List<TetherServer> servers;

  private ZooKeeperElection(TestingServer zooKeeper, List<TetherServer> servers) {
    this.zooKeeper = zooKeeper;
    this.servers = servers;
  }

  /** Starts ZooKeeper and enters every one of {@code servers} (in node order) in the election. */
  static ZooKeeperElection start(List<TetherServer> servers) {
    ZooKeeperElection election = new ZooKeeperElection(LoopbackZooKeeper.server(), servers);
    try {
      for (TetherServer server : servers) {
        FaultProxy link = FaultProxy.start("127.0.0.1", election.zooKeeper.getPort());
        election.links.add(link);
        ZooKeeperRegistry registry =
            ZooKeeperRegistry.builder("127.0.0.1:" + link.port())
                .sessionTimeout(SESSION)
                .connectionTimeout(Duration.ofSeconds(2))
                .build();
        election.registries.add(registry);
        election.members.add(registry.joinCluster(server, CLUSTER));
      }
    } catch (RuntimeException e) {
      election.close();
      throw e;
    }
    return election;
  }

  /** Waits until one member leads and every member announces it with all the others. */
  void awaitSettled() {
    awaitTrue(
        () -> {
          int leader = leader();
          Topology t = servers.get(0).topology();
          return leader >= 0
              && t != null
              && t.primary().equals(endpoint(leader))
              && t.alternates().size() == servers.size() - 1
              && servers.stream().allMatch(s -> t.equals(s.topology()));
        },
        "the election to settle");
  }

  /** The node that holds the leadership now, or -1. */
  int leader() {
    for (int i = 0; i < members.size(); i++) {
      if (members.get(i).isPrimary()) {
        return i;
      }
    }
    return -1;
  }

  /** Node {@code i}'s link to ZooKeeper goes silent; its clients still reach it. */
  void cutOff(int i) {
    links.get(i).freeze();
  }

  /** Node {@code i}'s link to ZooKeeper flows again. */
  void reconnect(int i) {
    links.get(i).unfreeze();
  }

  /**
   * Waits until every member but {@code deposed} announces a primary other than it and one of them
   * leads; returns that new leader's node.
   */
  int awaitNewLeaderAnnounced(int deposed) {
    int[] leader = {-1};
    awaitTrue(
        () -> {
          int live = deposed == 0 ? 1 : 0;
          Topology t = servers.get(live).topology();
          if (t == null || t.primary().equals(endpoint(deposed))) {
            return false;
          }
          for (int i = 0; i < servers.size(); i++) {
            if (i != deposed && !t.equals(servers.get(i).topology())) {
              return false;
            }
            if (i != deposed && members.get(i).isPrimary() && t.primary().equals(endpoint(i))) {
              leader[0] = i;
            }
          }
          return leader[0] >= 0;
        },
        "a new leader after node " + deposed + " was cut off");
    return leader[0];
  }

  /** The endpoint node {@code i}'s membership announces: its server's own, not its fault proxy. */
  String endpoint(int i) {
    return servers.get(i).endpoints().get(0).toString();
  }

  private static void awaitTrue(BooleanSupplier condition, String what) {
    LongSupplier clock = System::nanoTime;
    long giveUp = clock.getAsLong() + PATIENCE.toNanos();
    while (!condition.getAsBoolean()) {
      if (clock.getAsLong() - giveUp > 0) {
        throw new IllegalStateException(
            "gave up waiting " + PATIENCE.toSeconds() + " s for " + what);
      }
      try {
        // Polls the members' announcements, as a deployment's health check would.
        TimeUnit.MILLISECONDS.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted waiting for " + what, e);
      }
    }
  }

  @Override
  public void close() {
    // Links flow again first, so that each session closes rather than waits out a frozen link.
    links.forEach(FaultProxy::unfreeze);
    registries.forEach(ZooKeeperRegistry::close);
    links.forEach(FaultProxy::close);
    try {
      zooKeeper.close();
    } catch (IOException e) {
      throw new IllegalStateException("cannot stop ZooKeeper", e);
    }
  }
}
