package dev.tether.cli.demo;

import dev.tether.Connection;
import dev.tether.ConnectionState;
import dev.tether.ExecutionMode;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.cli.kv.DemoServer;
import dev.tether.cli.kv.KeyValue;
import dev.tether.cli.kv.KeyValueStore;
import dev.tether.testkit.Direction;
import dev.tether.testkit.FaultProxy;
import java.time.Duration;
import java.util.Objects;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;

/**
 * One run of the frozen-peer scenario: a server, a {@link FaultProxy} in front of it, and a client
 * calling through the proxy every {@code callInterval}; then the proxy freezes and the run watches
 * for the client to declare the connection dead, by its state becoming CLOSED or by the pending
 * call failing with the heartbeat's reason. It gives up {@code slack} after the bound, so it never
 * runs longer than freezeAfter + idleTimeout + readerIdle + slack (20 s with the defaults).
 */
public final class FrozenPeerRun {
  private static final String LOOPBACK = "127.0.0.1";
  private static final String COUNTER = "frozen-peer";

  /** Calls before the clock starts, so class loading does not delay the first timed call. */
  private static final int WARM_UP_CALLS = 50;

  /** How often the run looks at the connection's state: the resolution of the CLOSED time. */
  private static final Duration STATE_POLL = Duration.ofMillis(5);

  /**
   * What to run.
   *
   * @param freezeAfter when the proxy freezes, since the caller started
   * @param clientProperties {@code tether.*} settings for the client, on top of {@code -Dtether.*}
   *     system properties; empty to run with Tether's defaults, as the issue asks
   */
  public record Settings(
      FrozenPeerScenario scenario, Duration freezeAfter, Properties clientProperties) {
    public Settings {
      Objects.requireNonNull(scenario);
      if (freezeAfter.isNegative() || freezeAfter.isZero()) {
        throw new IllegalArgumentException("freezeAfter must be positive: " + freezeAfter);
      }
      Properties copy = new Properties();
      copy.putAll(clientProperties);
      clientProperties = copy;
    }
  }

  private final Settings settings;
  private final LongSupplier nanoClock;
  private final Consumer<Timeline.Event> live;

  /** A run on the system clock; {@code live} sees each timeline event as it happens. */
  public FrozenPeerRun(Settings settings, Consumer<Timeline.Event> live) {
    this.settings = settings;
    this.nanoClock = System::nanoTime;
    this.live = live;
  }

  public FrozenPeerReport run() throws InterruptedException {
    Properties effective = effectiveClientProperties();
    // The same reading of the same properties the runtime makes, so the bound printed is the one in
    // force.
    Duration readerIdle = heartbeat(effective, "tether.heartbeat.readerIdle", DEFAULT_READER_IDLE);
    Duration idleTimeout =
        heartbeat(effective, "tether.heartbeat.idleTimeout", DEFAULT_IDLE_TIMEOUT);
    Duration watchAfterFreeze = idleTimeout.plus(readerIdle).plus(settings.scenario().slack());
    Timeline timeline = new Timeline(nanoClock, live);
    DemoServer server =
        DemoServer.start(
            "server-1",
            "tcp -h " + LOOPBACK + " -p 0",
            ExecutionMode.EXECUTOR,
            new KeyValueStore());
    String serverEndpoint = "tcp -h " + LOOPBACK + " -p " + server.endpoints().get(0).port();
    // Resources close in reverse order: the fault proxy first, which ends the frozen connection and
    // with it any call still pending on it, so closing the client does not wait for that call.
    try (Tether tether = Tether.builder().properties(settings.clientProperties()).build();
        FaultProxy faults = FaultProxy.start(LOOPBACK, server.endpoints().get(0).port())) {
      String proxyString = DemoServer.KV + ":" + faults.endpoint();
      // Longer than the run watches: the heartbeat, not the invocation timeout, must end the call.
      Proxy proxy =
          tether.proxy(proxyString).withInvocationTimeout(watchAfterFreeze.plusSeconds(1));
      KeyValue kv = proxy.as(KeyValue.class);
      for (int i = 0; i < WARM_UP_CALLS; i++) {
        kv.whoami();
      }
      Connection connection = proxy.connection();
      timeline.start();
      timeline.record(
          "server-1 on " + serverEndpoint + ", behind a fault proxy on " + faults.endpoint());
      Caller caller = new Caller(kv, settings.scenario().callInterval(), nanoClock, timeline);
      Thread callerThread = caller.start();
      try {
        sleepUntil(timeline.startNanos() + settings.freezeAfter().toNanos());
        Watch watch =
            freezeAndWatch(faults, tether, connection, caller, timeline, watchAfterFreeze);
        CallFailure failure = caller.failureAfterFreeze().getNow(null);
        return new FrozenPeerReport(
            settings.scenario(),
            proxyString,
            serverEndpoint,
            readerIdle,
            idleTimeout,
            heartbeatSource(effective),
            timeline.events(),
            watch.frozenAt(),
            caller.callsOk(),
            caller.failedBeforeFreeze(),
            caller.lastReplyBefore(watch.frozenNanos()),
            failure == null ? null : failure.description(),
            failure == null ? null : Duration.ofNanos(failure.atNanos() - watch.frozenNanos()),
            watch.closedAfter(),
            watch.waited(),
            watch.bytesForwarded());
      } finally {
        caller.requestStop();
        callerThread.interrupt();
      }
    } finally {
      server.close();
    }
  }

  /**
   * What the run saw from the freeze on.
   *
   * @param frozenNanos when the proxy froze, on the run's clock
   * @param frozenAt the same, since the caller started
   * @param closedAfter when the connection's state became CLOSED, since the freeze; null if it did
   *     not
   * @param waited how long the run watched
   * @param bytesForwarded what the proxy moved after the freeze, both ways
   */
  private record Watch(
      long frozenNanos,
      Duration frozenAt,
      Duration closedAfter,
      Duration waited,
      long bytesForwarded) {}

  /**
   * Freezes the proxy, then watches until the connection is CLOSED and the pending call has ended,
   * or {@code watchAfterFreeze} has passed.
   */
  private Watch freezeAndWatch(
      FaultProxy faults,
      Tether tether,
      Connection connection,
      Caller caller,
      Timeline timeline,
      Duration watchAfterFreeze)
      throws InterruptedException {
    long forwardedBefore = forwarded(faults);
    faults.freeze();
    // Taken once freeze() returned, when no byte can move any more, and before the caller learns
    // of it: everything the caller saw succeed happened before this moment.
    long frozenNanos = nanoClock.getAsLong();
    caller.onFrozen(frozenNanos);
    Duration frozenAt = timeline.elapsed();
    timeline.record("fault proxy frozen: no byte moves either way, no socket closes");
    Duration closedAfter = null;
    long giveUpNanos = frozenNanos + watchAfterFreeze.toNanos();
    while (nanoClock.getAsLong() - giveUpNanos < 0) {
      // A Connection is a snapshot, so the runtime is asked for a fresh one at each poll; the poll
      // period is the resolution.
      if (closedAfter == null && tether.connection(connection).state() == ConnectionState.CLOSED) {
        closedAfter = Duration.ofNanos(nanoClock.getAsLong() - frozenNanos);
        timeline.record("connection state CLOSED");
      }
      if (closedAfter != null && caller.failureAfterFreeze().isDone()) {
        break;
      }
      TimeUnit.NANOSECONDS.sleep(STATE_POLL.toNanos());
    }
    Duration waited = Duration.ofNanos(nanoClock.getAsLong() - frozenNanos);
    if (closedAfter == null) {
      timeline.record(
          "gave up watching: the connection is still " + tether.connection(connection).state());
    }
    return new Watch(
        frozenNanos, frozenAt, closedAfter, waited, forwarded(faults) - forwardedBefore);
  }

  private static long forwarded(FaultProxy faults) {
    return faults.bytesForwarded(Direction.CLIENT_TO_SERVER)
        + faults.bytesForwarded(Direction.SERVER_TO_CLIENT);
  }

  /**
   * {@code -Dtether.*} system properties overlaid by the settings', as {@code Tether.builder()}
   * merges them.
   */
  /**
   * Tether's documented heartbeat defaults (docs/architecture.md, "Timers"), for when nothing
   * overrides them.
   */
  static final Duration DEFAULT_READER_IDLE = Duration.ofSeconds(3);

  static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(10);

  /** {@code -Dtether.*} system properties under the run's own, as the runtime reads them. */
  private Properties effectiveClientProperties() {
    Properties effective = new Properties();
    for (String name : System.getProperties().stringPropertyNames()) {
      if (name.startsWith("tether.")) {
        effective.setProperty(name, System.getProperty(name));
      }
    }
    effective.putAll(settings.clientProperties());
    return effective;
  }

  private static Duration heartbeat(Properties effective, String key, Duration fallback) {
    String value = effective.getProperty(key);
    return value == null ? fallback : new dev.tether.cli.DurationConverter().convert(value);
  }

  /** "Tether's defaults", or the heartbeat properties that changed them. */
  private static String heartbeatSource(Properties effective) {
    TreeMap<String, String> set = new TreeMap<>();
    for (String name : effective.stringPropertyNames()) {
      if (name.startsWith("tether.heartbeat.")) {
        set.put(name, effective.getProperty(name));
      }
    }
    if (set.isEmpty()) {
      return "Tether's defaults, nothing overridden";
    }
    return "overridden: "
        + set.entrySet().stream()
            .map(e -> e.getKey() + "=" + e.getValue())
            .collect(Collectors.joining(", "));
  }

  private void sleepUntil(long targetNanos) throws InterruptedException {
    for (long left = targetNanos - nanoClock.getAsLong();
        left > 0;
        left = targetNanos - nanoClock.getAsLong()) {
      TimeUnit.NANOSECONDS.sleep(left);
    }
  }

  /**
   * How the first call to fail after the freeze failed.
   *
   * @param atNanos when, on the run's clock
   * @param description the exception's kind and message
   */
  private record CallFailure(long atNanos, String description) {}

  /**
   * The client's one caller: an increment every interval, counting what came back until the freeze,
   * then reporting the first failure after it and stopping. Increments are not idempotent, so a
   * call lost with its connection fails at once instead of being retried through the frozen proxy,
   * and its failure carries the reason the connection was declared dead.
   */
  private static final class Caller implements Runnable {
    private final KeyValue kv;
    private final long intervalNanos;
    private final LongSupplier nanoClock;
    private final Timeline timeline;
    private final CompletableFuture<CallFailure> failureAfterFreeze = new CompletableFuture<>();
    private volatile boolean stopRequested;

    /** 0 until the proxy froze, then when it did. */
    private volatile long frozenNanos;

    // Written by the caller thread only, read by the run once the caller is done: volatile
    // suffices.
    private volatile long callsOk;
    private volatile long failedBeforeFreeze;

    /** When the latest successful reply arrived; 0 before the first. */
    private volatile long lastReplyNanos;

    Caller(KeyValue kv, Duration interval, LongSupplier nanoClock, Timeline timeline) {
      this.kv = kv;
      this.intervalNanos = interval.toNanos();
      this.nanoClock = nanoClock;
      this.timeline = timeline;
    }

    /** Starts calling on a thread of its own, which it returns. */
    Thread start() {
      Thread thread = new Thread(this, "demo-frozen-peer-caller");
      // A daemon: a caller stuck in a call must not keep the JVM alive.
      thread.setDaemon(true);
      thread.start();
      timeline.record(
          "caller calls increment every "
              + FrozenPeerReport.human(Duration.ofNanos(intervalNanos))
              + " through the proxy");
      return thread;
    }

    @Override
    public void run() {
      long next = nanoClock.getAsLong();
      while (!stopRequested && !failureAfterFreeze.isDone()) {
        callOnce();
        next += intervalNanos;
        try {
          sleepUntil(next);
        } catch (InterruptedException e) {
          return; // asked to stop
        }
      }
    }

    private void callOnce() {
      try {
        kv.increment(COUNTER);
        long now = nanoClock.getAsLong();
        lastReplyNanos = now;
        callsOk++;
      } catch (RuntimeException e) {
        long now = nanoClock.getAsLong();
        String description = ClientTally.kindOf(e) + ": " + e.getMessage();
        if (frozenNanos == 0) {
          failedBeforeFreeze++;
          timeline.record("increment failed before the freeze: " + description);
        } else if (!stopRequested) {
          timeline.record("pending increment failed: " + description);
          failureAfterFreeze.complete(new CallFailure(now, description));
        }
      }
    }

    private void sleepUntil(long targetNanos) throws InterruptedException {
      for (long left = targetNanos - nanoClock.getAsLong();
          left > 0;
          left = targetNanos - nanoClock.getAsLong()) {
        TimeUnit.NANOSECONDS.sleep(left);
      }
    }

    void onFrozen(long atNanos) {
      frozenNanos = atNanos;
    }

    void requestStop() {
      stopRequested = true;
    }

    CompletableFuture<CallFailure> failureAfterFreeze() {
      return failureAfterFreeze;
    }

    long callsOk() {
      return callsOk;
    }

    long failedBeforeFreeze() {
      return failedBeforeFreeze;
    }

    /** How long before {@code frozenNanos} the last reply arrived; null when none did. */
    Duration lastReplyBefore(long frozenAtNanos) {
      long last = lastReplyNanos;
      return last == 0 ? null : Duration.ofNanos(Math.max(0, frozenAtNanos - last));
    }
  }
}
