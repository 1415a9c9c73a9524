package dev.tether.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The faults of a run, drawn up front from a seeded {@link Random} in logical time, so that one
 * seed always gives the same faults in the same order, whatever the machine's speed: a failing run
 * is replayed with its seed. Until every kind of fault is in the plan, each draw picks among the
 * kinds still missing, so a short dense run meets them all (all but the leader cut-off, which needs
 * a cluster electing in ZooKeeper and is played in a plan of its own, {@link #of}). The plan keeps
 * the cluster answerable: at most {@code maxDown} nodes are down at once, one fault per node at a
 * time, exclusive faults (rolling restart, primary failover) only on a healthy cluster (a sick node
 * aside) and alone, and every fault healed before the run ends. A primary handover moves the
 * primary without taking a node down, from a primary that has no fault of its own. Misdeployed
 * restarts count as down; sick nodes answer (with their errors) and do not; neither begins on the
 * primary, and sick nodes begin {@link #SICK_SPACING_NANOS} apart.
 */
public final class FaultPlan {
  /** How much of each kind the scheduler draws, out of their sum. */
  private static final Map<FaultKind, Integer> WEIGHTS =
      new EnumMap<>(
          Map.ofEntries(
              Map.entry(FaultKind.SICK_NODE, 8),
              Map.entry(FaultKind.HOSTILE_STREAM_CLIENT, 6),
              Map.entry(FaultKind.MISDEPLOYED_RESTART, 8),
              Map.entry(FaultKind.PRIMARY_HANDOVER, 8),
              Map.entry(FaultKind.KILL, 18),
              Map.entry(FaultKind.FREEZE, 14),
              Map.entry(FaultKind.RESET, 18),
              Map.entry(FaultKind.LATENCY, 18),
              Map.entry(FaultKind.DRAIN, 14),
              Map.entry(FaultKind.ROLLING_RESTART, 6),
              Map.entry(FaultKind.PRIMARY_FAILOVER, 12)));

  /**
   * A rolling restart's window in the plan, per node; the driver takes as long as the drains take.
   */
  private static final long ROLLING_NANOS_PER_NODE = TimeUnit.MILLISECONDS.toNanos(1500);

  private static final long FIRST_FAULT_NANOS = TimeUnit.SECONDS.toNanos(3);

  /**
   * The gap between two fault starts at density 1, drawn between these (the 3-minute run's pace).
   */
  private static final int MIN_GAP_MILLIS = 300;

  private static final int MAX_GAP_MILLIS = 2500;

  /** Every fault heals this long before the run ends, so the last calls meet a healthy cluster. */
  private static final long QUIET_END_NANOS = TimeUnit.SECONDS.toNanos(2);

  /**
   * Two sick nodes begin at least this far apart: a node is sick for up to 9 s, ejected about 5 s
   * into it for the client's 10 s (tether.cluster.ejection.base), and a group ejects at most half
   * its nodes, so sick nodes back to back could find no room left to eject the next.
   */
  static final long SICK_SPACING_NANOS = TimeUnit.SECONDS.toNanos(16);

  private final List<FaultStep> steps;

  /** The node the servers announce as primary at the start; failovers move it to the next node. */
  private final int firstPrimary;

  private FaultPlan(List<FaultStep> steps, int firstPrimary) {
    this.steps = List.copyOf(steps);
    this.firstPrimary = firstPrimary;
  }

  /**
   * A plan of exactly {@code steps}, the servers announcing {@code firstPrimary} first: a focused
   * run of one fault. The steps are taken as they are; keeping the cluster answerable is the
   * caller's part.
   */
  public static FaultPlan of(List<FaultStep> steps, int firstPrimary) {
    return new FaultPlan(steps, firstPrimary);
  }

  public List<FaultStep> steps() {
    return steps;
  }

  public int firstPrimary() {
    return firstPrimary;
  }

  /** Whether some step of the plan needs a cluster that elects its primary in ZooKeeper. */
  public boolean needsZooKeeper() {
    return steps.stream().anyMatch(s -> s.kind().needsZooKeeper());
  }

  /** How many faults of each kind the plan holds. */
  public Map<FaultKind, Integer> countByKind() {
    Map<FaultKind, Integer> out = new EnumMap<>(FaultKind.class);
    for (FaultKind k : FaultKind.values()) {
      out.put(k, 0);
    }
    steps.forEach(s -> out.merge(s.kind(), 1, Integer::sum));
    return out;
  }

  /**
   * Draws the faults of a run at density 1: a fault begins every 0.3 to 2.5 s when the cluster
   * allows it.
   */
  public static FaultPlan generate(Random random, Duration duration, int nodes, int maxDown) {
    return generate(random, duration, nodes, maxDown, 1);
  }

  /**
   * Draws the faults of a run of {@code duration} on {@code nodes} nodes, beginning faults {@code
   * density} times as often as density 1 does; each fault lasts as long as at density 1, since its
   * hold is what the client's detection (heartbeats, attempt timeouts) must outlast.
   *
   * @throws IllegalArgumentException if {@code maxDown} does not leave a node up, or {@code density
   *     < 1}
   */
  public static FaultPlan generate(
      Random random, Duration duration, int nodes, int maxDown, double density) {
    if (maxDown < 1 || maxDown >= nodes) {
      throw new IllegalArgumentException("maxDown must be between 1 and nodes - 1: " + maxDown);
    }
    if (!(density >= 1)) {
      throw new IllegalArgumentException("density must be at least 1: " + density);
    }
    int minGap = (int) Math.round(MIN_GAP_MILLIS / density);
    int maxGap = (int) Math.round(MAX_GAP_MILLIS / density);
    Set<FaultKind> missing = EnumSet.copyOf(WEIGHTS.keySet());
    long end = duration.toNanos() - QUIET_END_NANOS;
    List<FaultStep> steps = new ArrayList<>();
    int primary = 0;
    /** Per node, when the fault on it heals (0: none). */
    long[] busyUntil = new long[nodes];
    boolean[] busyDown = new boolean[nodes];
    boolean[] busySick = new boolean[nodes];
    long exclusiveUntil = 0;
    long lastSick = -SICK_SPACING_NANOS;
    // An exclusive fault drawn while others last waits for them to heal; nothing new starts
    // meanwhile.
    FaultKind waiting = null;
    for (long t = FIRST_FAULT_NANOS; t < end; t += millis(random, minGap, maxGap)) {
      FaultKind drawn = draw(random, missing.isEmpty() ? WEIGHTS.keySet() : missing);
      FaultKind kind = waiting != null ? waiting : drawn;
      int downNow = 0;
      boolean anyBusy = false;
      for (int i = 0; i < nodes; i++) {
        if (busyUntil[i] > t) {
          // A sick node lets an exclusive fault in: the cluster is whole, its client ejects one.
          anyBusy |= !busySick[i];
          downNow += busyDown[i] ? 1 : 0;
        }
      }
      if (t < exclusiveUntil) {
        continue;
      }
      if (kind.isExclusive()) {
        long hold =
            kind == FaultKind.ROLLING_RESTART
                ? nodes * ROLLING_NANOS_PER_NODE
                : millis(random, 1500, 4000);
        if (anyBusy) {
          waiting = kind;
          continue;
        }
        waiting = null;
        if (t + hold > end) {
          continue;
        }
        int node = kind.movesThePrimary() ? primary : random.nextInt(nodes);
        steps.add(new FaultStep(t, kind, node, hold, 0));
        missing.remove(kind);
        exclusiveUntil = t + hold;
        if (kind.movesThePrimary()) {
          primary = (primary + 1) % nodes;
        }
        continue;
      }
      List<Integer> free = new ArrayList<>();
      for (int i = 0; i < nodes; i++) {
        if (busyUntil[i] <= t) {
          free.add(i);
        }
      }
      if (free.isEmpty() || (kind.takesNodeDown && downNow >= maxDown)) {
        continue;
      }
      if (kind == FaultKind.PRIMARY_HANDOVER) {
        // The primary hands over only while it is up and fault-free, as a leader steps down.
        if (!free.contains(primary)) {
          continue;
        }
        steps.add(new FaultStep(t, kind, primary, 0, 0));
        missing.remove(kind);
        primary = (primary + 1) % nodes;
        continue;
      }
      if (kind.sparesThePrimary()) {
        free.remove(Integer.valueOf(primary));
      }
      if (free.isEmpty() || (kind == FaultKind.SICK_NODE && t - lastSick < SICK_SPACING_NANOS)) {
        continue;
      }
      int node = free.get(random.nextInt(free.size()));
      long hold =
          switch (kind) {
            case KILL -> millis(random, 1000, 4000);
            case FREEZE -> millis(random, 500, 3000);
            case LATENCY -> millis(random, 1000, 4000);
            case DRAIN -> millis(random, 500, 2000);
            // Some sicknesses outlast the client's ejection (about 5 s; SickNodes), some do not.
            case SICK_NODE -> millis(random, 3000, 9000);
            case MISDEPLOYED_RESTART -> millis(random, 1000, 2500);
            case HOSTILE_STREAM_CLIENT -> millis(random, 2000, 4000);
            default -> 0;
          };
      long latency = kind == FaultKind.LATENCY ? 20 + random.nextInt(231) : 0;
      if (t + hold > end) {
        continue;
      }
      steps.add(new FaultStep(t, kind, node, hold, latency));
      missing.remove(kind);
      if (kind == FaultKind.SICK_NODE) {
        lastSick = t;
      }
      busyUntil[node] = t + Math.max(hold, 1);
      busyDown[node] = kind.takesNodeDown;
      busySick[node] = kind == FaultKind.SICK_NODE;
    }
    return new FaultPlan(steps, 0);
  }

  /** One of {@code kinds}, each as likely as its weight. */
  private static FaultKind draw(Random random, Set<FaultKind> kinds) {
    int totalWeight = 0;
    for (FaultKind k : kinds) {
      totalWeight += WEIGHTS.get(k);
    }
    int r = random.nextInt(totalWeight);
    for (FaultKind k : kinds) {
      r -= WEIGHTS.get(k);
      if (r < 0) {
        return k;
      }
    }
    throw new AssertionError("weights sum to " + totalWeight);
  }

  private static long millis(Random random, int min, int max) {
    return TimeUnit.MILLISECONDS.toNanos(min + random.nextInt(max - min + 1));
  }
}
