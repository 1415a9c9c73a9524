package dev.tether.cluster;

import dev.tether.Endpoint;
import dev.tether.client.Candidate;
import dev.tether.client.ConnectionKey;
import dev.tether.client.ConnectionSupervisor;
import dev.tether.client.NodeHost;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One server of a node group and what the group knows of it: its health, which follows the
 * supervisor of its connection and the decisions of the group's outlier detector, and how busy and
 * fast it is and how its calls end. Health changes on the control executor only, through {@link
 * #moveTo}, which alone emits the node's events; the figures are written by the calls themselves.
 */
final class Node implements NodeStats {
  /** The group, told of every move of a node's health on the control executor. */
  @FunctionalInterface
  interface Listener {
    void onHealthChanged(Node node);
  }

  /** How fast the latency average follows new measurements. */
  private static final double EWMA_WEIGHT = 0.2;

  final Candidate candidate;
  final ConnectionKey key;
  final ConnectionSupervisor supervisor;
  private final NodeHost host;
  private final Listener group;

  /** Changed by moveTo on the control executor only. */
  private NodeHealth health = NodeHealth.UNKNOWN;

  /** Why the node last moved (the detail of its event); control executor only. */
  private String why = "";

  private final AtomicInteger inFlight = new AtomicInteger();

  /** Its strategy's turn when it last picked the node; written by the picking callers. */
  private volatile long lastPick;

  /** How its calls have been ending, for the group's outlier detector; written by the calls. */
  final FaultTally tally;

  /**
   * The latency average as the bits of a double. Calls of one node finish on more than one loop
   * (its extra connections, a reconnect), so each update is a compare-and-set: two calls ending at
   * once both count, where a plain read-then-write lost one, and readers picking on callers'
   * threads always see a whole value. No lock and no hop per call; a single-writer design would
   * need a hop for every call that ends off the writer's loop.
   */
  private final AtomicLong latencyEwmaBits = new AtomicLong(Double.doubleToRawLongBits(0));

  Node(NodeHost host, Candidate candidate, ConnectionSupervisor supervisor, Listener group) {
    this.host = host;
    this.candidate = candidate;
    this.key = supervisor.key();
    this.supervisor = supervisor;
    this.group = group;
    this.tally = new FaultTally(host.ejection().outlierCalls());
  }

  /** Control executor only (asserted): other threads read the health the group's picker holds. */
  NodeHealth health() {
    host.control().assertInExecutor();
    return health;
  }

  /**
   * Every change of the node's health, and the only place its events are emitted: moves to {@code
   * next} when {@link NodeHealth#canBecome} allows it, emits the event of that move with {@code
   * why} (the figures that decided it) and tells the group. A move to where the node is, or one the
   * table refuses, changes and emits nothing and returns false. Control executor only.
   */
  boolean moveTo(NodeHealth next, String why, Throwable cause) {
    host.control().assertInExecutor();
    if (!health.canBecome(next)) {
      return false;
    }
    health = next;
    this.why = why;
    host.events().emit(next.entered, endpoint().toString(), why, cause);
    group.onHealthChanged(this);
    return true;
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

  /** The detail of the node's last move; control executor only. */
  String why() {
    host.control().assertInExecutor();
    return why;
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
  public long lastPick() {
    return lastPick;
  }

  @Override
  public void picked(long turn) {
    lastPick = turn;
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
