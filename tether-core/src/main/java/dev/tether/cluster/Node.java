package dev.tether.cluster;

import dev.tether.Endpoint;
import dev.tether.client.Candidate;
import dev.tether.client.ConnectionKey;
import dev.tether.client.RequestChannel;
import dev.tether.internal.Backoff;
import dev.tether.spi.Scheduler;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One server of a node group and what the group knows of it: its health, its connection, how busy
 * and how fast it is. Health changes through the transition methods only.
 */
final class Node implements NodeStats {
  /** A node's health as the group sees it. */
  enum Health {
    /** Never connected yet: eligible, the first call will tell. */
    UNKNOWN,
    /** Connected and answering. */
    ALIVE,
    /** Its connection failed or broke: skipped until the supervisor reconnects it. */
    DEAD,
    /** Runs a server version outside the proxy's range: skipped for good. */
    INCOMPATIBLE
  }

  /** How fast the latency average follows new measurements. */
  private static final double EWMA_WEIGHT = 0.2;

  final Candidate candidate;
  final ConnectionKey key;
  private volatile Health health = Health.UNKNOWN;
  private final AtomicInteger inFlight = new AtomicInteger();
  private volatile double latencyEwmaNanos;
  /** The connection whose close the node watches; null until the first connect. */
  private volatile RequestChannel watched;
  /** Non-null only while DEAD: the supervisor's next reconnect attempt. */
  volatile Scheduler.Cancellable reconnect;
  /** Non-null only while DEAD. */
  volatile Backoff.Streak delays;
  /** When the node was last marked dead, in ticker nanos. */
  volatile long diedAtNanos;

  Node(Candidate candidate, String connectionId) {
    this.candidate = candidate;
    this.key = candidate.key(connectionId);
  }

  Health health() {
    return health;
  }

  boolean isSelectable() {
    Health h = health;
    return h == Health.UNKNOWN || h == Health.ALIVE;
  }

  /** Becomes ALIVE; returns true when it was not before. */
  boolean markAlive() {
    Health before = health;
    health = Health.ALIVE;
    delays = null;
    reconnect = null;
    return before != Health.ALIVE;
  }

  /** Becomes DEAD; returns true when it was not already (so one supervisor streak starts). */
  synchronized boolean markDead(long nowNanos) {
    if (health == Health.DEAD || health == Health.INCOMPATIBLE) {
      return false;
    }
    health = Health.DEAD;
    diedAtNanos = nowNanos;
    return true;
  }

  void markIncompatible() {
    health = Health.INCOMPATIBLE;
  }

  /** Starts watching a connection; returns false when it is the one already watched. */
  boolean watch(RequestChannel c) {
    if (watched == c) {
      return false;
    }
    watched = c;
    return true;
  }

  RequestChannel watched() {
    return watched;
  }

  void callStarted() {
    inFlight.incrementAndGet();
  }

  void callFinished(long latencyNanos) {
    inFlight.decrementAndGet();
    double previous = latencyEwmaNanos;
    latencyEwmaNanos = previous == 0 ? latencyNanos : previous + EWMA_WEIGHT * (latencyNanos - previous);
  }

  @Override
  public Endpoint endpoint() {
    return candidate.endpoint();
  }

  /**
   * Calls outstanding on the node's connection, whichever proxy sent them, or this group's own
   * count before the node is connected.
   */
  @Override
  public int inFlight() {
    RequestChannel c = watched;
    return c != null ? Math.max(c.outstandingRequests(), inFlight.get()) : inFlight.get();
  }

  @Override
  public double latencyEwmaNanos() {
    return latencyEwmaNanos;
  }

  @Override
  public String toString() {
    return candidate.endpoint() + " " + health;
  }
}
