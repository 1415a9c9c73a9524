package dev.tether.zookeeper;

import dev.tether.Endpoint;
import dev.tether.TetherServer;
import dev.tether.Topology;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.leader.Participant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One server's place in a cluster's leader election (a Curator {@link LeaderLatch}). Whenever the
 * participants change, the server announces the topology: the leader's endpoint as primary, the
 * others as alternates in the order they would take over. Closing leaves the election.
 */
public final class ClusterMembership implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ClusterMembership.class);

  private final String cluster;
  private final TetherServer server;
  private final LeaderLatch latch;
  private final CuratorCache participants;

  /** Reads the participants off Curator's threads, one refresh at a time. */
  private final ExecutorService refresher;

  ClusterMembership(
      CuratorFramework client, String electionPath, String cluster, TetherServer server) {
    this.cluster = cluster;
    this.server = server;
    this.latch = new LeaderLatch(client, electionPath, announcedEndpoint(server));
    this.participants = CuratorCache.build(client, electionPath);
    this.refresher =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "tether-zk-election-" + cluster);
              t.setDaemon(true);
              return t;
            });
  }

  /** The endpoint that stands for a server in a topology: its first stream endpoint. */
  static String announcedEndpoint(TetherServer server) {
    return server.endpoints().stream()
        .filter(e -> !e.isDatagram())
        .findFirst()
        .map(Endpoint::toString)
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "server " + server.serverId() + " has no stream endpoint to announce"));
  }

  ClusterMembership start() {
    latch.addListener(
        new LeaderLatchListener() {
          @Override
          public void isLeader() {
            scheduleRefresh();
          }

          @Override
          public void notLeader() {
            scheduleRefresh();
          }
        });
    participants
        .listenable()
        .addListener(
            CuratorCacheListener.builder()
                .forAll((type, before, after) -> scheduleRefresh())
                .build());
    try {
      latch.start();
    } catch (Exception e) {
      throw new IllegalStateException("cannot join the election of cluster " + cluster, e);
    }
    participants.start();
    return this;
  }

  private void scheduleRefresh() {
    try {
      refresher.execute(this::refresh);
    } catch (RejectedExecutionException closed) {
      // Closing: the topology no longer matters.
    }
  }

  private void refresh() {
    try {
      Topology t = topologyOf(latch.getParticipants());
      if (t != null && !t.equals(server.topology())) {
        server.setTopology(t);
        log.info(
            "cluster {}: server {} announces primary {}, alternates {}",
            cluster,
            server.serverId(),
            t.primary(),
            t.alternates());
      }
    } catch (Exception e) {
      // ZooKeeper unreachable: keep announcing the last topology; the next change refreshes again.
      log.debug("cluster {}: participants unreadable now", cluster, e);
    }
  }

  /**
   * Leader first, then the others in election order; one entry per endpoint; null with no leader.
   */
  static Topology topologyOf(java.util.Collection<Participant> inOrder) {
    String primary = null;
    List<String> alternates = new ArrayList<>();
    for (Participant p : inOrder) {
      if (p.isLeader() && primary == null && !p.getId().isEmpty()) {
        primary = p.getId();
      }
    }
    if (primary == null) {
      return null;
    }
    for (Participant p : inOrder) {
      // A participant whose node was just created may not carry its id yet.
      if (!p.getId().isEmpty() && !p.getId().equals(primary) && !alternates.contains(p.getId())) {
        alternates.add(p.getId());
      }
    }
    return Topology.of(primary, alternates);
  }

  /** Whether this server holds the leadership now. */
  public boolean isPrimary() {
    return latch.hasLeadership();
  }

  /** The topology this server announces now, or null before the first election result. */
  public Topology topology() {
    return server.topology();
  }

  public String cluster() {
    return cluster;
  }

  /** Leaves the election (the next in line takes over) and stops following it. */
  @Override
  public void close() {
    refresher.shutdownNow();
    participants.close();
    try {
      latch.close();
    } catch (IOException | IllegalStateException e) {
      log.debug("cluster {}: latch already closed", cluster, e);
    }
  }
}
