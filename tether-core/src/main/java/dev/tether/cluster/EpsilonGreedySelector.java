package dev.tether.cluster;

import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Epsilon-greedy balancing (as the RethinkDB driver does, after bitly's hostpool): with probability
 * epsilon a pick explores, uniformly over the live nodes; otherwise it exploits, choosing each node
 * with probability proportional to its {@link EpsilonCalculator epsilon value}, computed from the
 * node's latencies of the last {@code decayDuration}, recent ones weighing more. Nodes without
 * recent calls count as average, so new nodes get traffic. Time comes only from the callers' {@code
 * nowNanos}.
 *
 * <p>Details, where hostpool leaves a choice:
 *
 * <ul>
 *   <li>Each node's latencies fall in {@code buckets} buckets (120 by default) of {@code
 *       decayDuration / buckets} each, aligned on multiples of that period of the caller's clock. A
 *       node's score is the average of its non-empty buckets' means weighted linearly by recency
 *       (the current bucket {@code buckets}, the oldest 1), fed to the calculator in milliseconds.
 *       (Hostpool instead carries the last mean into empty buckets and never divides by the
 *       weights, so a node with few buckets filled looks faster than it is.) A bucket expires after
 *       {@code decayDuration}; a node with all buckets expired is unmeasured, and forgotten unless
 *       it is still being picked.
 *   <li>Epsilon starts at {@code initialEpsilon} (0.3) and is multiplied by {@value
 *       #EPSILON_DECAY_PER_PERIOD} each time the bucket period moves on, down to a floor of {@code
 *       minEpsilon} (0.05, reached after 18 periods: 45 s with the defaults). Hostpool decays per
 *       exploring pick and floors at 0.01; decaying with time makes the warm-up independent of the
 *       call rate, and the higher floor keeps slow nodes measured so a recovery is noticed.
 * </ul>
 *
 * <p>Every setting comes from {@link EpsilonGreedySettings} ({@code tether.lb.epsilon.*}).
 * Thread-safe. A pick takes no lock and allocates nothing: per node, one identity-map lookup and
 * one cached value, refreshed once per period and on each recorded call.
 */
public final class EpsilonGreedySelector implements NodeSelector {
  static final double EPSILON_DECAY_PER_PERIOD = 0.9;

  private final EpsilonGreedySettings settings;
  private final long bucketNanos;
  private final Random random;

  /** A lock, not a monitor: callers on virtual threads that meet here leave their carriers free. */
  private final ReentrantLock lock = new ReentrantLock();

  /**
   * Copy-on-write, keyed by identity: replaced under {@link #lock}, never changed once published.
   */
  private volatile Map<NodeStats, LatencyWindow> windows = new IdentityHashMap<>();

  /** The latest bucket period any caller reported; {@code Long.MIN_VALUE} before the first call. */
  private volatile long latestPeriod = Long.MIN_VALUE;

  /** Changed only under {@link #lock}, when the period moves on. */
  private volatile double epsilon;

  /**
   * @param settings decay, buckets, calculator and epsilon
   * @param random the source of every choice; seed it to make picks reproducible
   */
  public EpsilonGreedySelector(EpsilonGreedySettings settings, Random random) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.bucketNanos = settings.decayDuration().toNanos() / settings.buckets();
    this.epsilon = settings.initialEpsilon();
    this.random = Objects.requireNonNull(random, "random");
  }

  /**
   * The default buckets and epsilon with this decay and calculator.
   *
   * @param decayDuration how long a latency counts; at least 120 ns (one nanosecond per bucket)
   */
  public EpsilonGreedySelector(
      Duration decayDuration, EpsilonCalculator calculator, Random random) {
    this(
        new EpsilonGreedySettings(
            decayDuration,
            EpsilonGreedySettings.defaults().buckets(),
            calculator,
            EpsilonGreedySettings.defaults().initialEpsilon(),
            EpsilonGreedySettings.defaults().minEpsilon()),
        random);
  }

  /**
   * The RethinkDB driver's defaults: decay over 5 minutes (120 buckets of 2.5 s), linear
   * calculator.
   */
  public static EpsilonGreedySelector withDefaults(Random random) {
    return new EpsilonGreedySelector(EpsilonGreedySettings.defaults(), random);
  }

  @Override
  public int pick(List<? extends NodeStats> live, long nowNanos) {
    long period = periodOf(nowNanos);
    int size = live.size();
    if (size == 1) {
      return 0;
    }
    if (random.nextDouble() < epsilon) {
      return random.nextInt(size); // explore
    }
    return pickByValue(live, period);
  }

  @Override
  public void onCallFinished(NodeStats node, long latencyNanos, long nowNanos) {
    long period = periodOf(nowNanos);
    LatencyWindow window = windows.get(node);
    if (window == null) {
      window = addWindow(node, period);
    }
    window.record(latencyNanos, period);
  }

  /** A weighted random choice; unmeasured nodes weigh the mean of the measured ones. */
  private int pickByValue(List<? extends NodeStats> live, long period) {
    Map<NodeStats, LatencyWindow> windows = this.windows;
    int size = live.size();
    double measuredSum = 0;
    int measured = 0;
    for (int i = 0; i < size; i++) {
      double value = valueOf(windows.get(live.get(i)), period);
      if (!Double.isNaN(value)) {
        measuredSum += value;
        measured++;
      }
    }
    if (measured == 0) {
      return random.nextInt(size);
    }
    double unmeasuredValue = measuredSum / measured;
    double remaining = random.nextDouble() * (measuredSum + (size - measured) * unmeasuredValue);
    for (int i = 0; i < size - 1; i++) {
      double value = valueOf(windows.get(live.get(i)), period);
      remaining -= Double.isNaN(value) ? unmeasuredValue : value;
      if (remaining < 0) {
        return i;
      }
    }
    return size - 1; // also absorbs rounding and values that changed between the two passes
  }

  private static double valueOf(LatencyWindow window, long period) {
    return window == null ? Double.NaN : window.epsilonValue(period);
  }

  /** The bucket period of {@code nowNanos}; moves the selector on when it is a new one. */
  private long periodOf(long nowNanos) {
    long period = Math.floorDiv(nowNanos, bucketNanos);
    if (period > latestPeriod) {
      periodStarted(period);
    }
    return period;
  }

  private void periodStarted(long period) {
    lock.lock();
    try {
      long previous = latestPeriod;
      if (period <= previous) {
        return; // another caller got there first
      }
      latestPeriod = period;
      if (previous != Long.MIN_VALUE) {
        decayEpsilon(period - previous);
        forgetIdleNodes(period);
      }
    } finally {
      lock.unlock();
    }
  }

  private void decayEpsilon(long periods) {
    double decayed = epsilon * Math.pow(EPSILON_DECAY_PER_PERIOD, Math.min(periods, 1_000));
    epsilon = Math.max(settings.minEpsilon(), decayed);
  }

  /**
   * Drops the windows nobody read or wrote for a whole decay duration: all their buckets expired.
   */
  private void forgetIdleNodes(long period) {
    Map<NodeStats, LatencyWindow> current = windows;
    if (current.values().stream().noneMatch(window -> isIdle(window, period))) {
      return; // the usual case: nothing to copy
    }
    Map<NodeStats, LatencyWindow> kept = new IdentityHashMap<>(current);
    kept.values().removeIf(window -> isIdle(window, period));
    windows = kept;
  }

  private boolean isIdle(LatencyWindow window, long period) {
    return period - window.period() >= settings.buckets();
  }

  private LatencyWindow addWindow(NodeStats node, long period) {
    lock.lock();
    try {
      LatencyWindow window = windows.get(node);
      if (window == null) {
        window = new LatencyWindow(settings.calculator(), settings.buckets(), period);
        Map<NodeStats, LatencyWindow> grown = new IdentityHashMap<>(windows);
        grown.put(node, window);
        windows = grown;
      }
      return window;
    } finally {
      lock.unlock();
    }
  }

  /** The current exploration probability. */
  double epsilon() {
    return epsilon;
  }

  /** How many nodes the selector keeps latencies for. */
  int trackedNodes() {
    return windows.size();
  }

  /** The node's weighted average latency as of {@code nowNanos}; NaN when it has none. */
  double weightedAverageNanos(NodeStats node, long nowNanos) {
    LatencyWindow window = windows.get(node);
    return window == null ? Double.NaN : window.weightedAverageNanos(periodOf(nowNanos));
  }

  @Override
  public String toString() {
    return "EpsilonGreedySelector[decay "
        + settings.decayDuration()
        + " in "
        + settings.buckets()
        + " buckets, "
        + settings.calculator()
        + ", epsilon "
        + epsilon
        + "]";
  }
}
