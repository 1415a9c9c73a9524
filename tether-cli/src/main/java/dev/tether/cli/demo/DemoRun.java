package dev.tether.cli.demo;

import dev.tether.LoadBalancing;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.cli.kv.DemoServer;
import dev.tether.cli.kv.KeyValue;
import dev.tether.cli.kv.KeyValueStore;
import dev.tether.observe.TetherListener;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * One run of a cluster scenario: starts the servers, points one client at all of them with
 * per-request balancing, lets the callers call while the scenario disrupts the cluster, then stops
 * everything and reports, with the scenario's expectations judged. Every loop in it ends by time,
 * and the callers also by a call budget.
 */
public final class DemoRun {
  /** Generous enough never to bind on loopback (a call takes tens of microseconds), yet finite. */
  private static final long MAX_CALLS_PER_CALLER_PER_SECOND = 200_000;

  /** Rounds of every operation on every server before the clock starts; not counted. */
  private static final int WARM_UP_ROUNDS = 50;

  /**
   * What to run.
   *
   * @param servers how many servers (scenarios pick on server-2, so at least 2; the restart
   *     scenarios go through server-1 to server-3, and a step naming a missing server is recorded
   *     as failed)
   * @param callTimeout the invocation timeout of each call; bounds how long a caller can hang
   * @param zookeeper null for a static proxy string; else where the servers register and the client
   *     finds them: {@link DemoRegistry#EMBEDDED} or a connect string
   */
  public record Settings(
      Scenario scenario,
      int servers,
      int callers,
      Duration duration,
      Duration callTimeout,
      String zookeeper) {
    public Settings {
      Objects.requireNonNull(scenario);
      if (servers < 2
          || callers < 1
          || duration.isNegative()
          || duration.isZero()
          || callTimeout.isNegative()
          || callTimeout.isZero()) {
        throw new IllegalArgumentException(
            "servers >= 2, callers >= 1 and positive durations are required");
      }
    }
  }

  /**
   * Someone watching the run: the status page of {@code tether demo --admin}. It gets the listener
   * for the client and every server before they start, then the client once it runs with the
   * cluster's servers as they are at each moment (restarted ones are new objects), and its {@code
   * holding} runs before anything closes (after the callers stopped).
   */
  public interface Watcher {
    TetherListener listener();

    void clientStarted(Tether tether, Supplier<List<TetherServer>> servers);

    void holding() throws InterruptedException;
  }

  private final Settings settings;
  private final LongSupplier nanoClock;
  private final Consumer<Timeline.Event> live;

  /** Null when nobody watches. */
  private final Watcher watcher;

  /** A run on the system clock; {@code live} sees each timeline event as it happens. */
  public DemoRun(Settings settings, Consumer<Timeline.Event> live) {
    this(settings, System::nanoTime, live, null);
  }

  /** As {@link #DemoRun(Settings, Consumer)}, watched by {@code watcher}. */
  public DemoRun(Settings settings, Consumer<Timeline.Event> live, Watcher watcher) {
    this(settings, System::nanoTime, live, watcher);
  }

  DemoRun(Settings settings, LongSupplier nanoClock, Consumer<Timeline.Event> live) {
    this(settings, nanoClock, live, null);
  }

  private DemoRun(
      Settings settings, LongSupplier nanoClock, Consumer<Timeline.Event> live, Watcher watcher) {
    this.settings = settings;
    this.nanoClock = nanoClock;
    this.live = live;
    this.watcher = watcher;
  }

  public DemoReport run() throws InterruptedException {
    KeyValueStore store = new KeyValueStore();
    ClientTally tally = new ClientTally();
    Timeline timeline = new Timeline(nanoClock, live);
    // Resources close in reverse order: the client first. Its callers have stopped by then, so
    // nothing is in flight when the servers go.
    TetherListener listener = watcher == null ? null : watcher.listener();
    try (DemoRegistry registry =
            settings.zookeeper() == null ? null : DemoRegistry.start(settings.zookeeper());
        DemoCluster cluster =
            DemoCluster.start(
                settings.servers(),
                store,
                timeline,
                registry == null ? ServerLifecycle.NONE : registry,
                listener);
        Tether tether =
            listener == null ? Tether.create() : Tether.builder().listener(listener).build()) {
      if (watcher != null) {
        watcher.clientStarted(tether, cluster::servers);
      }
      String proxy =
          registry == null
              ? cluster.proxyString(DemoServer.KV)
              : DemoServer.KV + " (found in " + registry.describe() + ")";
      Proxy balanced =
          registry == null
              ? tether.proxy(proxy).withConnectionCached(false)
              : tether
                  .proxy(DemoServer.KV, registry.discovery(DemoServer.KV))
                  .withLoadBalancing(LoadBalancing.ROUND_ROBIN);
      KeyValue kv = balanced.withInvocationTimeout(settings.callTimeout()).as(KeyValue.class);
      int warmUpCallsPerServer = cluster.warmUp(tether, WARM_UP_ROUNDS);
      long durationNanos = settings.duration().toNanos();
      timeline.start();
      long start = timeline.startNanos();
      Workload workload =
          new Workload(
              kv,
              settings.callers(),
              MAX_CALLS_PER_CALLER_PER_SECOND * Math.max(1, settings.duration().toSeconds()),
              start + durationNanos + settings.callTimeout().toNanos(),
              nanoClock,
              tally);
      workload.start();
      try {
        timeline.record(
            settings.servers() + " servers up, " + settings.callers() + " callers calling");
        for (Scenario.Step step : settings.scenario().steps()) {
          sleepUntil(start + (long) (step.atFraction() * durationNanos));
          perform(step, cluster, timeline);
        }
        sleepUntil(start + durationNanos);
      } finally {
        // Also when interrupted: callers must not outlive the run.
        workload.requestStop();
      }
      boolean stoppedInTime = workload.awaitStopped(settings.callTimeout().plusSeconds(5));
      Duration elapsed = timeline.elapsed();
      timeline.record(
          stoppedInTime ? "callers stopped" : "callers told to stop; some are still inside a call");
      if (watcher != null) {
        watcher.holding();
      }
      return report(
          proxy, cluster, store, tally, timeline, elapsed, stoppedInTime, warmUpCallsPerServer);
    }
  }

  /** A step that fails is part of the story, not the end of the demo. */
  private static void perform(Scenario.Step step, DemoCluster cluster, Timeline timeline) {
    try {
      step.action().perform(cluster);
    } catch (RuntimeException e) {
      timeline.record("scenario step failed: " + e);
    }
  }

  private void sleepUntil(long targetNanos) throws InterruptedException {
    sleepUntil(nanoClock, targetNanos);
  }

  /**
   * Paces a run with the real clock: returns once {@code nanoClock} reads {@code targetNanos} or
   * later.
   */
  static void sleepUntil(LongSupplier nanoClock, long targetNanos) throws InterruptedException {
    for (long left = targetNanos - nanoClock.getAsLong();
        left > 0;
        left = targetNanos - nanoClock.getAsLong()) {
      TimeUnit.NANOSECONDS.sleep(left);
    }
  }

  private DemoReport report(
      String proxy,
      DemoCluster cluster,
      KeyValueStore store,
      ClientTally tally,
      Timeline timeline,
      Duration elapsed,
      boolean stoppedInTime,
      int warmUpCallsPerServer) {
    return DemoReport.collect(
        new DemoReport.Run(
            settings.scenario(),
            settings.callers(),
            settings.duration(),
            elapsed,
            settings.callTimeout(),
            warmUpCallsPerServer,
            proxy,
            timeline.events(),
            stoppedInTime),
        cluster,
        tally,
        store.counter(Workload.COUNTER));
  }
}
