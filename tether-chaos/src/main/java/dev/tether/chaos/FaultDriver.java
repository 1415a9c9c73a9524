package dev.tether.chaos;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Plays a {@link FaultPlan} on a {@link ChaosCluster}: each fault begins at its time and heals at
 * its time, in the plan's logical order even when a slow step (a drain, a rolling restart) makes
 * later ones late, so a seed replays the same sequence. Runs on the thread that calls {@link #run};
 * {@link #requestStop()} ends it early, healing what is still broken.
 */
public final class FaultDriver {
  /** A begin or a heal, ordered by logical time, heals first at equal times, then by plan order. */
  private record Event(long atNanos, boolean heal, int order, FaultStep step) {}

  /**
   * A fault as it was played, on the clock: begun when its injection started, healed when its
   * healing ended (0: never begun or never healed).
   */
  public record Played(FaultStep step, long beganNanos, long healedNanos) {}

  private final ChaosCluster cluster;
  private final FaultPlan plan;
  private final LongSupplier nanoClock;
  private final Map<FaultKind, Integer> injected = new EnumMap<>(FaultKind.class);
  private final List<String> failures = new ArrayList<>();

  /** Per step of the plan, when it began and when it healed; guarded by {@code this}. */
  private final long[][] times;

  private volatile boolean stopRequested;

  /** Told of every begin and heal as it happens (the trace); may do nothing. */
  private final java.util.function.Consumer<String> trace;

  public FaultDriver(
      ChaosCluster cluster,
      FaultPlan plan,
      LongSupplier nanoClock,
      java.util.function.Consumer<String> trace) {
    this.trace = trace;
    this.cluster = cluster;
    this.plan = plan;
    this.nanoClock = nanoClock;
    this.times = new long[plan.steps().size()][2];
    for (FaultKind k : FaultKind.values()) {
      injected.put(k, 0);
    }
  }

  /** Plays the plan from {@code startNanos} (on the clock); returns once every fault healed. */
  public void run(long startNanos) throws InterruptedException {
    PriorityQueue<Event> events =
        new PriorityQueue<>(
            Comparator.comparingLong(Event::atNanos)
                .thenComparing(e -> !e.heal())
                .thenComparingInt(Event::order));
    List<FaultStep> steps = plan.steps();
    for (int i = 0; i < steps.size(); i++) {
      events.add(new Event(steps.get(i).atNanos(), false, i, steps.get(i)));
    }
    try {
      while (!events.isEmpty() && !stopRequested) {
        Event next = events.poll();
        waitUntil(startNanos + next.atNanos());
        if (stopRequested) {
          events.add(next);
          break;
        }
        if (next.heal()) {
          perform(next, () -> cluster.heal(next.step()));
        } else {
          synchronized (injected) {
            injected.merge(next.step().kind(), 1, Integer::sum);
          }
          stamp(next.order(), 0);
          perform(next, () -> cluster.begin(next.step()));
          Event heal = new Event(next.step().healNanos(), true, next.order(), next.step());
          events.add(heal);
        }
      }
    } finally {
      // Stopped early or interrupted: heal what is broken, in order, so the leak checks meet a
      // whole cluster.
      for (Event e : events) {
        if (e.heal()) {
          perform(e, () -> cluster.heal(e.step()));
        }
      }
    }
  }

  /** Ends {@link #run} before its plan is over; what is broken heals at once. */
  public void requestStop() {
    stopRequested = true;
  }

  /** Faults begun so far, by kind. */
  public Map<FaultKind, Integer> injected() {
    synchronized (injected) {
      return new EnumMap<>(injected);
    }
  }

  /** Faults that could not be injected or healed: each fails the run. */
  public synchronized List<String> failures() {
    return List.copyOf(failures);
  }

  private void perform(Event e, Runnable action) {
    trace.accept(
        (e.heal() ? "heal  " : "begin ")
            + e.step().kind().label
            + (e.step().kind().needsZooKeeper()
                ? " (on whichever node leads)"
                : " on node " + e.step().node())
            + (e.step().latencyMillis() > 0 ? " (" + e.step().latencyMillis() + " ms)" : ""));
    try {
      action.run();
    } catch (RuntimeException ex) {
      synchronized (this) {
        failures.add((e.heal() ? "healing " : "injecting ") + e.step() + ": " + ex);
      }
    }
    if (e.heal()) {
      stamp(e.order(), 1);
    }
  }

  private synchronized void stamp(int order, int which) {
    times[order][which] = nanoClock.getAsLong();
  }

  /** The faults begun so far, in plan order, with their times. */
  public synchronized List<Played> played() {
    List<Played> out = new ArrayList<>();
    List<FaultStep> steps = plan.steps();
    for (int i = 0; i < steps.size(); i++) {
      if (times[i][0] != 0) {
        out.add(new Played(steps.get(i), times[i][0], times[i][1]));
      }
    }
    return out;
  }

  private void waitUntil(long targetNanos) throws InterruptedException {
    // The driver's pacing: it waits for the plan's next moment, not for a result.
    for (long left = targetNanos - nanoClock.getAsLong();
        left > 0 && !stopRequested;
        left = targetNanos - nanoClock.getAsLong()) {
      TimeUnit.NANOSECONDS.sleep(Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
    }
  }
}
