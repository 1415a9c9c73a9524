package dev.tether.cluster;

import dev.tether.Endpoint;
import dev.tether.client.Candidate;
import dev.tether.client.ConnectionKey;
import dev.tether.client.ConnectionSupervisor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One server of a node group and what the group knows of it: its health, which follows the
 * supervisor of its connection, and how busy and fast it is. Health changes on the control
 * executor only; the load figures are written by the calls themselves.
 */
final class Node implements NodeStats {
  /** A node's health as the group sees it. */
  enum Health {
    /** Never connected yet: eligible, the first call will tell. */
    UNKNOWN,
    /** Connected and answering. */
    ALIVE,
    /** Its connection failed or broke: skipped until its supervisor has it up again. */
    DEAD,
    /** Runs a server version outside the proxy's range: skipped for good. */
    INCOMPATIBLE,
    /** Connected, but its calls kept failing: skipped until its ejection ends and a probe call decides. */
    EJECTED
  }

  /** How fast the latency average follows new measurements. */
  private static final double EWMA_WEIGHT = 0.2;

  final Candidate candidate;
  final ConnectionKey key;
  final ConnectionSupervisor supervisor;
  /** Changed on the control executor only. */
  private Health health = Health.UNKNOWN;
  private final AtomicInteger inFlight = new AtomicInteger();
  /** Node faults in a row (calls finish on any loop); reset by a call that succeeds. */
  final AtomicInteger faultStreak = new AtomicInteger();
  /** Calls of the last ten seconds: successes first, node faults second (any loop). */
  final dev.tether.internal.SlidingCounts outcomes = new dev.tether.internal.SlidingCounts();
  /** Ejections in a row, for the growing ejection time; control executor only. */
  int ejections;
  /**
   * True from the end of an ejection until the probe call decides. Written on the control
   * executor; volatile because the loop that finishes the probe call reads it.
   */
  volatile boolean probing;
  /**
   * Written as calls finish, on the loop of the node's connection; volatile so strategies picking
   * on callers' threads read a whole value.
   */
  private volatile double latencyEwmaNanos;

  Node(Candidate candidate, ConnectionSupervisor supervisor) {
    this.candidate = candidate;
    this.key = supervisor.key();
    this.supervisor = supervisor;
  }

  Health health() {
    return health;
  }

  /** Moves to {@code next}; returns true when that changed the health. Control executor only. */
  boolean becomes(Health next) {
    if (health == next || health == Health.INCOMPATIBLE) {
      return false;
    }
    health = next;
    return true;
  }

  boolean isSelectable() {
    return health == Health.UNKNOWN || health == Health.ALIVE;
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
    var c = supervisor.usable();
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
