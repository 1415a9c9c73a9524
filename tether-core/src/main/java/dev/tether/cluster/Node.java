package dev.tether.cluster;

import dev.tether.Endpoint;
import dev.tether.client.Candidate;
import dev.tether.client.ConnectionKey;
import dev.tether.client.ConnectionSupervisor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One server of a node group and what the group knows of it: its health, which follows the
 * supervisor of its connection and the group's outlier detector, and how busy and fast it is and
 * how its calls end. Health changes on the control executor only; the figures are written by the
 * calls themselves.
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
    /**
     * Connected, but its calls kept failing: skipped until its ejection ends and a probe call
     * decides.
     */
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

  /** How its calls have been ending, for the group's outlier detector; written by the calls. */
  final FaultTally tally = new FaultTally();

  /**
   * The latency average as the bits of a double. Calls of one node finish on more than one loop
   * (its extra connections, a reconnect), so each update is a compare-and-set: two calls ending at
   * once both count, where a plain read-then-write lost one, and readers picking on callers'
   * threads always see a whole value. No lock and no hop per call; a single-writer design would
   * need a hop for every call that ends off the writer's loop.
   */
  private final AtomicLong latencyEwmaBits = new AtomicLong(Double.doubleToRawLongBits(0));

  Node(Candidate candidate, ConnectionSupervisor supervisor) {
    this.candidate = candidate;
    this.key = supervisor.key();
    this.supervisor = supervisor;
  }

  Health health() {
    return health;
  }

  /**
   * Every change of the node's health: moves to {@code next} unless the node is INCOMPATIBLE
   * (terminal); returns true when that changed the health, so the group republishes and emits.
   * Control executor only.
   */
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
    long bits;
    double next;
    do {
      bits = latencyEwmaBits.get();
      double previous = Double.longBitsToDouble(bits);
      next = previous == 0 ? latencyNanos : previous + EWMA_WEIGHT * (latencyNanos - previous);
    } while (!latencyEwmaBits.compareAndSet(bits, Double.doubleToRawLongBits(next)));
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
    return Double.longBitsToDouble(latencyEwmaBits.get());
  }

  @Override
  public String toString() {
    return candidate.endpoint() + " " + health;
  }
}
