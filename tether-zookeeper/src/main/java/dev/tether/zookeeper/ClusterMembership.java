package dev.tether.zookeeper;

import dev.tether.Endpoint;
import dev.tether.TetherServer;
import dev.tether.Topology;
import java.io.IOException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One server's place in a cluster's leader election (a Curator {@link LeaderLatch}). Whenever the
 * participants change, the server announces the topology: the leader's endpoint as primary, the
 * others as alternates in the order they would take over, with the election's epoch ({@link
 * ElectedView}). A leader that loses its ZooKeeper connection stops naming itself primary before
 * its session can expire; closing (or closing the server) names the next in line and leaves the
 * election.
 */
public final class ClusterMembership implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ClusterMembership.class);

  private final String cluster;
  private final String electionPath;
  private final String self;
  private final TetherServer server;
  private final CuratorFramework client;
  private final CuratorCache participants;
  private final ConnectionStateListener connectionWatch = (c, state) -> onConnectionState(state);
  private final AtomicBoolean closed = new AtomicBoolean();

  /**
   * Owns the announcement: every refresh, step-down and re-entry runs here, one at a time, off
   * Curator's threads.
   */
  private final ExecutorService refresher;

  /** This member's entry in the election; replaced (on the refresher) when it re-enters. */
  private volatile LeaderLatch latch;

  /**
   * Whether ZooKeeper answers this member now; refresher thread only. While it does not, the
   * member's word on the election may be stale, so it announces nothing new.
   */
  private boolean connected = true;

  /**
   * Whether the participants' cache holds every node yet; refresher thread only. Before, it may
   * hold a young node without the older ones, whose view would name the wrong primary under an
   * epoch too high to take back.
   */
  private boolean loaded;

  /**
   * Whether this member stepped down as primary since it last entered the election; refresher
   * thread only.
   */
  private boolean steppedDown;

  ClusterMembership(
      CuratorFramework client, String electionPath, String cluster, TetherServer server) {
    this.cluster = cluster;
    this.electionPath = electionPath;
    this.server = server;
    this.client = client;
    this.self = announcedEndpoint(server);
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
    participants
        .listenable()
        .addListener(
            CuratorCacheListener.builder()
                .forAll((type, before, after) -> onRefresher(this::refresh))
                .forInitialized(() -> onRefresher(this::cacheLoaded))
                .build());
    client.getConnectionStateListenable().addListener(connectionWatch);
    try {
      latch = enter();
    } catch (Exception e) {
      throw new IllegalStateException("cannot join the election of cluster " + cluster, e);
    }
    participants.start();
    return this;
  }

  /** A new node at the end of the election, whose leadership changes refresh the view. */
  private LeaderLatch enter() throws Exception {
    LeaderLatch entry = new LeaderLatch(client, electionPath, self);
    entry.addListener(
        new LeaderLatchListener() {
          @Override
          public void isLeader() {
            onRefresher(ClusterMembership.this::refresh);
          }

          @Override
          public void notLeader() {
            onRefresher(ClusterMembership.this::refresh);
          }
        });
    entry.start();
    return entry;
  }

  private void onRefresher(Runnable task) {
    try {
      refresher.execute(task);
    } catch (RejectedExecutionException closing) {
      // Closing: the topology no longer matters.
    }
  }

  private void onConnectionState(ConnectionState state) {
    if (state == ConnectionState.SUSPENDED || state == ConnectionState.LOST) {
      onRefresher(this::stepDown);
    } else if (state.isConnected()) {
      onRefresher(this::reconnected);
    }
  }

  /**
   * ZooKeeper stopped answering: the session may expire, and another member lead, before this one
   * hears. A primary names the next in line instead, one epoch up, so that clients leave it now.
   */
  private void stepDown() {
    connected = false;
    Topology stepped = ElectedView.steppedDown(server.topology(), self);
    if (stepped == null) {
      return;
    }
    steppedDown = true;
    server.setTopology(stepped);
    log.warn(
        "cluster {}: server {} lost ZooKeeper and no longer names itself primary; announces"
            + " primary {} (epoch {})",
        cluster,
        server.serverId(),
        stepped.primary(),
        stepped.epoch());
  }

  /**
   * ZooKeeper answers again. A member that stepped down may still hold the first node (its session
   * lived), but its clients have left and its old epoch now ranks below its own step-down: it
   * leaves and re-enters at the end, so the next in line leads under a later epoch.
   */
  private void reconnected() {
    connected = true;
    if (steppedDown) {
      steppedDown = false;
      LeaderLatch old = latch;
      try {
        latch = enter();
      } catch (Exception e) {
        log.warn("cluster {}: could not re-enter the election", cluster, e);
      }
      leave(old);
    }
    refresh();
  }

  private void cacheLoaded() {
    loaded = true;
    refresh();
  }

  private void refresh() {
    if (!connected || !loaded) {
      return;
    }
    Topology t = ElectedView.of(electionPath, participants.stream().toList());
    Topology now = server.topology();
    // Never below what this member announced: its own view from before it stepped down would be
    // older news than the step-down.
    if (t == null || t.equals(now) || (now != null && t.epoch() < now.epoch())) {
      return;
    }
    server.setTopology(t);
    log.info(
        "cluster {}: server {} announces primary {}, alternates {} (epoch {})",
        cluster,
        server.serverId(),
        t.primary(),
        t.alternates(),
        t.epoch());
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

  /**
   * Leaves the election (the next in line takes over) and stops following it. A primary first names
   * the next in line, one epoch up, as on a step-down: it will not hear the next election, and a
   * server still running ends its clients' connections once it is no longer the primary.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    client.getConnectionStateListenable().removeListener(connectionWatch);
    refresher.shutdownNow();
    try {
      // A refresh under way would announce after the step-down below.
      refresher.awaitTermination(1, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    Topology stepped = ElectedView.steppedDown(server.topology(), self);
    if (stepped != null) {
      server.setTopology(stepped);
    }
    participants.close();
    leave(latch);
  }

  private void leave(LeaderLatch entry) {
    try {
      entry.close();
    } catch (IOException | IllegalStateException e) {
      log.debug("cluster {}: latch already closed", cluster, e);
    }
  }
}
