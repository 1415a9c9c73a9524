package dev.tether.chaos;

import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.observe.TetherEvent;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * One chaos run: a 5-node {@link ChaosCluster} takes the {@link LoadMix} while a {@link
 * FaultDriver} plays a seeded {@link FaultPlan}; afterwards the ledger is judged, the connections
 * are checked for orphans, and, once everything is closed, the JVM's threads, file descriptors and
 * Netty direct memory are compared with their baseline. {@code main} runs it from the command line
 * with the {@code chaos.*} system properties.
 */
public final class ChaosRun {
  /** Heartbeats fast enough for a freeze of half a second to be noticed (like the demo's). */
  static final String HEARTBEAT_READER_IDLE = "250ms";

  static final String HEARTBEAT_IDLE_TIMEOUT = "750ms";

  /**
   * How dead nodes are reconnected: {@code standard} (100 ms doubling to 30 s). The default, {@code
   * exponential} (30 s doubling to 15 min), keeps a node whose connection was merely reset out of
   * rotation for 30 s: a few resets of healthy nodes then leave no node alive, and idempotent calls
   * fail with NoAvailableNodeException while every server runs (seed -5861236307438706531 over 40 s
   * shows it, with {@code -Dchaos.nodeReconnect=exponential}). Reported; the chaos run tests the
   * policy that heals.
   */
  static final String NODE_RECONNECT_POLICY = "standard";

  /**
   * The report's name for the RETRY events of calls a node answered with SERVICE_NOT_FOUND, which
   * went on to a peer.
   */
  public static final String RETRY_AFTER_NOT_FOUND = "RETRY after NOT_FOUND";

  /** Servers drop connections silent this long: orphans of frozen links go within the checks. */
  static final Duration SERVER_READER_IDLE = Duration.ofSeconds(5);

  /** When the connections are counted under load, before the plan's first fault (at 3 s). */
  private static final long CONNECTION_BASELINE_NANOS = TimeUnit.MILLISECONDS.toNanos(2500);

  /**
   * Threads that may outlive a run without being a leak: JDK and Netty singletons started lazily by
   * the first use of something (e.g. Netty's GlobalEventExecutor, which lingers a second after its
   * last task, the JDK's "process reaper" or "Attach Listener").
   */
  static final int THREAD_ALLOWANCE = 2;

  /**
   * Descriptors that may be opened once and kept: class-path jars the run's code loaded from first.
   */
  static final int FD_ALLOWANCE = 4;

  /**
   * Direct memory an allocator may keep cached after its buffers were released (one 64 KiB chunk...
   * per arena).
   */
  static final long DIRECT_ALLOWANCE_BYTES = 4L << 20;

  private static final Duration SETTLE_PATIENCE = Duration.ofSeconds(30);

  /**
   * How long the client tries to resume a stream: shorter than the default 30 s, so a stream whose
   * server was killed ends within the run, and longer than any freeze of the plan (4 s at most).
   */
  static final Duration STREAM_RESUME_WINDOW = Duration.ofSeconds(10);

  /** How long one stream may take: its items, a resume window, an opening. */
  private static final Duration STREAM_PATIENCE = STREAM_RESUME_WINDOW.plusSeconds(20);

  private final ChaosSettings settings;
  private final PrintStream out;
  private final LongSupplier nanoClock = System::nanoTime;

  /** The plan to play; null: drawn from the seed. */
  private final FaultPlan fixedPlan;

  /** Whether the run warms up first and checks threads, descriptors and direct memory after. */
  private final boolean jvmLeakChecks;

  /** {@code chaos.trace=true}: every fault and every node health change, timed, as they happen. */
  private final boolean tracing = Boolean.getBoolean("chaos.trace");

  private volatile long traceStart;

  /** The full run: a plan drawn from the settings' seed, a warm-up, and the JVM's leak checks. */
  public ChaosRun(ChaosSettings settings, PrintStream out) {
    this(settings, out, null, true);
  }

  private ChaosRun(
      ChaosSettings settings, PrintStream out, FaultPlan fixedPlan, boolean jvmLeakChecks) {
    this.settings = settings;
    this.out = out;
    this.fixedPlan = fixedPlan;
    this.jvmLeakChecks = jvmLeakChecks;
  }

  /**
   * A focused run of the given plan: the same load, ledgers and connection checks, without the
   * warm-up and the JVM-wide leak checks (whose settling takes seconds of its own), so a test of
   * one fault takes a few seconds.
   */
  public static ChaosRun focused(ChaosSettings settings, PrintStream out, FaultPlan plan) {
    return new ChaosRun(settings, out, plan, false);
  }

  public static void main(String[] args) throws Exception {
    ChaosReport report = new ChaosRun(ChaosSettings.from(System.getProperties()), System.out).run();
    System.exit(report.violations().isEmpty() ? 0 : 1);
  }

  public ChaosReport run() throws InterruptedException {
    out.printf(
        Locale.ROOT,
        "chaos run: seed %d (replay with -Dchaos.seed=%d), %s, %d nodes, %.0f calls/s,"
            + " %d streams at once, fault density %.1f%n",
        settings.seed(),
        settings.seed(),
        settings.duration(),
        settings.nodes(),
        settings.ratePerSecond(),
        settings.streams(),
        settings.faultDensity());
    // A short fault-free round first: classes, jars and lazy singleton threads it loads are not
    // leaks.
    ResourceSnapshot baseline;
    if (jvmLeakChecks) {
      warmUp();
      baseline = settle(null);
    } else {
      baseline = ResourceSnapshot.take();
    }

    FaultPlan plan =
        fixedPlan != null
            ? fixedPlan
            : FaultPlan.generate(
                new Random(settings.seed()),
                settings.duration(),
                settings.nodes(),
                settings.maxDown(),
                settings.faultDensity());
    long rate = Math.round(settings.ratePerSecond());
    int capacity =
        (int)
            Math.min(
                Integer.MAX_VALUE - 8,
                rate * Math.max(1, settings.duration().toSeconds()) * 2 + 10_000);
    NodeHealth health = new NodeHealth(settings.nodes());
    Ledger ledger = new Ledger(capacity, health::outages, nanoClock);
    StreamLedger streamLedger = new StreamLedger(streamCapacity(settings), StreamLoad.ITEMS);
    Map<TetherEvent.Kind, LongAdder> events = new ConcurrentHashMap<>();
    LongAdder notFoundRetries = new LongAdder();
    List<SickNodes.Ejection> ejections = Collections.synchronizedList(new ArrayList<>());
    String connectionsBefore;
    ResourceSnapshot underLoad;
    String connectionsAfter;
    List<String> connectionProblems = new ArrayList<>();
    FaultDriver driver;
    boolean stoppedInTime;
    long loadNanos;
    ChaosCluster cluster =
        ChaosCluster.start(
            settings.nodes(), ledger, health, SERVER_READER_IDLE, plan.needsZooKeeper(), nanoClock);
    List<String> endpoints = cluster.endpoints();
    long end;
    try {
      cluster.settlePrimary(plan.firstPrimary());
      try (Tether tether = client(events, notFoundRetries, ejections, streamLedger)) {
        LoadMix load =
            new LoadMix(
                tether,
                cluster.proxyString(ChaosService.NAME),
                ledger,
                health,
                settings.callTimeout(),
                settings.attemptTimeout(),
                nanoClock);
        StreamLoad streams =
            new StreamLoad(
                tether,
                cluster.proxyString(ChaosFeed.NAME),
                streamLedger,
                settings.callTimeout(),
                STREAM_PATIENCE,
                nanoClock);
        long start = nanoClock.getAsLong();
        traceStart = start;
        driver = new FaultDriver(cluster, plan, nanoClock, this::trace);
        long deadline = start + settings.duration().toNanos();
        long callsPerWorker =
            (long)
                    (settings.ratePerSecond()
                        / settings.workers()
                        * Math.max(1, settings.duration().toSeconds())
                        * 1.5)
                + 100;
        load.start(
            settings.seed(),
            settings.workers(),
            settings.ratePerSecond(),
            callsPerWorker,
            deadline);
        streams.start(settings.streams(), settings.duration().toSeconds() + 10, deadline);
        FaultDriver faults = driver;
        Thread driverThread =
            new Thread(
                () -> {
                  try {
                    faults.run(start);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                },
                "chaos-faults");
        driverThread.setDaemon(true);
        driverThread.start();
        sleepUntil(start + CONNECTION_BASELINE_NANOS);
        connectionsBefore = connections(tether, cluster);
        underLoad = ResourceSnapshot.take();
        int clientBefore = tether.status().connections().size();
        sleepUntil(deadline);
        load.requestStop();
        streams.requestStop();
        stoppedInTime =
            load.awaitStopped(settings.callTimeout().plusSeconds(10))
                & streams.awaitStopped(STREAM_PATIENCE);
        end = nanoClock.getAsLong();
        loadNanos = end - start;
        TimeUnit.SECONDS.timedJoin(driverThread, 60);
        if (driverThread.isAlive()) {
          driver.requestStop();
          driverThread.join(TimeUnit.SECONDS.toMillis(60));
        }
        ledger.awaitCompleted(settings.callTimeout().plusSeconds(10).toNanos());
        streamLedger.awaitCompleted(STREAM_PATIENCE.toNanos());
        // Idle now: the client keeps at most one connection per node and connection id (the
        // round-robin proxies share the default id, the primary's and the sessions' use "primary"),
        // extra connections opened under load have closed, and every server connection has its
        // client (frozen links' orphans are closed by the servers' reader idle).
        int bound = Math.max(clientBefore, settings.nodes() * LoadMix.CONNECTION_IDS);
        boolean settled =
            awaitTrue(
                () -> {
                  int client = tether.status().connections().size();
                  return client <= bound && serverConnections(cluster) == client;
                },
                SETTLE_PATIENCE);
        connectionsAfter = connections(tether, cluster);
        if (!settled) {
          connectionProblems.add(
              "connections did not settle within "
                  + SETTLE_PATIENCE.toSeconds()
                  + " s: "
                  + connectionsAfter
                  + " (under load before the faults: "
                  + connectionsBefore
                  + ")");
        }
      }
      if (!awaitTrue(() -> serverConnections(cluster) == 0, SETTLE_PATIENCE)) {
        connectionProblems.add(
            "servers still hold "
                + serverConnections(cluster)
                + " connections after the client closed");
      }
    } finally {
      cluster.close();
    }
    ResourceSnapshot after = jvmLeakChecks ? settle(baseline) : ResourceSnapshot.take();
    List<String> leaks = jvmLeakChecks ? leaks(baseline, after) : List.of();
    Map<String, Long> eventCounts = new TreeMap<>();
    events.forEach((k, v) -> eventCounts.put(k.name(), v.sum()));
    if (notFoundRetries.sum() > 0) {
      eventCounts.put(RETRY_AFTER_NOT_FOUND, notFoundRetries.sum());
    }
    ChaosReport report =
        new ChaosReport(
            settings,
            Duration.ofNanos(loadNanos),
            ledger.judge(),
            streamLedger.judge(),
            driver.injected(),
            driver.failures(),
            SickNodes.judge(
                driver.played(), endpoints, List.copyOf(ejections), ledger.sickAnswerTimes(), end),
            LeaderCutOffs.judge(
                cluster.leaderCuts(), cluster.executions(), ledger, settings.nodes()),
            cluster.hostileAttacks(),
            eventCounts,
            connectionsBefore,
            connectionsAfter,
            connectionProblems,
            baseline,
            underLoad,
            after,
            String.format(
                Locale.ROOT,
                "threads +%d, file descriptors +%d, direct memory +%s (see ChaosRun)",
                THREAD_ALLOWANCE,
                FD_ALLOWANCE,
                ResourceSnapshot.bytes(DIRECT_ALLOWANCE_BYTES)),
            leaks,
            stoppedInTime);
    report.print(out);
    return report;
  }

  /** Room for every stream the workers can open: one a second each at most, twice over. */
  private static int streamCapacity(ChaosSettings settings) {
    return (int)
        Math.min(
            Integer.MAX_VALUE - 8,
            (settings.duration().toSeconds() + 10) * settings.streams() * 2 + 100);
  }

  /**
   * The load's runtime, its events counted in {@code events}, the retries after a NOT_FOUND in
   * {@code notFoundRetries}, its ejections in {@code ejections} (a synchronized list).
   */
  private Tether client(
      Map<TetherEvent.Kind, LongAdder> events,
      LongAdder notFoundRetries,
      List<SickNodes.Ejection> ejections,
      StreamLedger streams) {
    return Tether.builder()
        .random(new Random(settings.seed() ^ 0x5DEECE66DL))
        .property("tether.heartbeat.readerIdle", HEARTBEAT_READER_IDLE)
        .property("tether.heartbeat.idleTimeout", HEARTBEAT_IDLE_TIMEOUT)
        .property("tether.cluster.reconnect.policy", settings.nodeReconnectPolicy())
        .property("tether.stream.resumeWindow", STREAM_RESUME_WINDOW.toMillis() + "ms")
        .listener(
            e -> {
              events.computeIfAbsent(e.kind(), k -> new LongAdder()).increment();
              if (e.kind() == TetherEvent.Kind.RETRY
                  && e.detail() != null
                  && e.detail().contains("NOT_FOUND")) {
                notFoundRetries.increment();
              }
              if (e.kind() == TetherEvent.Kind.NODE_EJECTED) {
                ejections.add(new SickNodes.Ejection(e.endpoint(), nanoClock.getAsLong()));
              }
              if (e.kind() == TetherEvent.Kind.STREAM_RESUMED) {
                streams.resumed(StreamLoad.streamIdOf(e.detail()));
              }
              if (e.kind() == TetherEvent.Kind.NODE_DEAD
                  || e.kind() == TetherEvent.Kind.NODE_ALIVE
                  || e.kind() == TetherEvent.Kind.NODE_EJECTED
                  || e.kind() == TetherEvent.Kind.NODE_READMITTED
                  || e.kind() == TetherEvent.Kind.NODE_INCOMPATIBLE
                  || e.kind() == TetherEvent.Kind.HEARTBEAT_TIMEOUT
                  || e.kind() == TetherEvent.Kind.RETRY_BUDGET_EXHAUSTED) {
                trace("event " + e.kind() + " " + e.endpoint() + ": " + e.detail());
              }
            })
        .build();
  }

  private void trace(String line) {
    if (tracing && traceStart != 0) {
      out.printf(Locale.ROOT, "%8.3f s  %s%n", (nanoClock.getAsLong() - traceStart) / 1e9, line);
    }
  }

  /**
   * A few seconds of every kind of call, and streams, on a healthy cluster, then everything closed.
   */
  private void warmUp() throws InterruptedException {
    NodeHealth health = new NodeHealth(settings.nodes());
    Ledger ledger = new Ledger(10_000, health::outages);
    StreamLedger streamLedger = new StreamLedger(100, StreamLoad.ITEMS);
    try (ChaosCluster cluster =
        ChaosCluster.start(settings.nodes(), ledger, health, SERVER_READER_IDLE)) {
      cluster.announcePrimary(0);
      try (Tether tether =
          client(new ConcurrentHashMap<>(), new LongAdder(), new ArrayList<>(), streamLedger)) {
        LoadMix load =
            new LoadMix(
                tether,
                cluster.proxyString(ChaosService.NAME),
                ledger,
                health,
                settings.callTimeout(),
                settings.attemptTimeout(),
                nanoClock);
        StreamLoad streams =
            new StreamLoad(
                tether,
                cluster.proxyString(ChaosFeed.NAME),
                streamLedger,
                settings.callTimeout(),
                STREAM_PATIENCE,
                nanoClock);
        long deadline = nanoClock.getAsLong() + TimeUnit.SECONDS.toNanos(5);
        load.start(settings.seed(), settings.workers(), 400, 50, deadline);
        streams.start(settings.streams(), 2, deadline);
        load.awaitStopped(Duration.ofSeconds(20));
        streams.awaitStopped(Duration.ofSeconds(20));
        ledger.awaitCompleted(TimeUnit.SECONDS.toNanos(20));
      }
    }
  }

  /**
   * Waits (bounded) until the JVM's resources stop shrinking, or fall to {@code target} plus the
   * allowances, after a GC, and returns them: Netty threads end, and sockets close, a little after
   * the close that asked for it.
   */
  private ResourceSnapshot settle(ResourceSnapshot target) throws InterruptedException {
    long giveUp = nanoClock.getAsLong() + SETTLE_PATIENCE.toNanos();
    ResourceSnapshot last = null;
    while (true) {
      System.gc();
      TimeUnit.MILLISECONDS.sleep(500);
      ResourceSnapshot now = ResourceSnapshot.take();
      boolean done =
          target == null
              ? last != null
                  && now.threads() >= last.threads()
                  && now.fileDescriptors() >= last.fileDescriptors()
              : leaks(target, now).isEmpty();
      if (done || nanoClock.getAsLong() - giveUp > 0) {
        return now;
      }
      last = now;
    }
  }

  static List<String> leaks(ResourceSnapshot baseline, ResourceSnapshot after) {
    List<String> out = new ArrayList<>();
    if (after.threads() > baseline.threads() + THREAD_ALLOWANCE) {
      out.add(
          "thread leak: "
              + baseline.threads()
              + " before, "
              + after.threads()
              + " after; new: "
              + after.threadsNotIn(baseline));
    }
    if (baseline.fileDescriptors() >= 0
        && after.fileDescriptors() > baseline.fileDescriptors() + FD_ALLOWANCE) {
      out.add(
          "file descriptor leak: "
              + baseline.fileDescriptors()
              + " before, "
              + after.fileDescriptors()
              + " after");
    }
    if (baseline.nettyDirectMemory() >= 0
        && after.nettyDirectMemory() > baseline.nettyDirectMemory() + DIRECT_ALLOWANCE_BYTES) {
      out.add(
          "direct memory leak (Netty's counter): "
              + ResourceSnapshot.bytes(baseline.nettyDirectMemory())
              + " before, "
              + ResourceSnapshot.bytes(after.nettyDirectMemory())
              + " after");
    }
    if (baseline.allocatorDirectMemory() >= 0
        && after.allocatorDirectMemory()
            > baseline.allocatorDirectMemory() + DIRECT_ALLOWANCE_BYTES) {
      out.add(
          "direct memory leak (allocator): "
              + ResourceSnapshot.bytes(baseline.allocatorDirectMemory())
              + " before, "
              + ResourceSnapshot.bytes(after.allocatorDirectMemory())
              + " after");
    }
    return out;
  }

  private static int serverConnections(ChaosCluster cluster) {
    int sum = 0;
    for (int i = 0; i < cluster.size(); i++) {
      if (cluster.isRunning(i)) {
        sum += cluster.servers().get(i).status().connections();
      }
    }
    return sum;
  }

  private static String connections(Tether tether, ChaosCluster cluster) {
    List<Integer> perServer = new ArrayList<>();
    for (TetherServer s : cluster.servers()) {
      perServer.add(s.status().connections());
    }
    return "client " + tether.status().connections().size() + ", servers " + perServer;
  }

  private boolean awaitTrue(BooleanSupplier condition, Duration patience)
      throws InterruptedException {
    long giveUp = nanoClock.getAsLong() + patience.toNanos();
    while (!condition.getAsBoolean()) {
      if (nanoClock.getAsLong() - giveUp > 0) {
        return false;
      }
      TimeUnit.MILLISECONDS.sleep(100);
    }
    return true;
  }

  private void sleepUntil(long targetNanos) throws InterruptedException {
    for (long left = targetNanos - nanoClock.getAsLong();
        left > 0;
        left = targetNanos - nanoClock.getAsLong()) {
      TimeUnit.NANOSECONDS.sleep(Math.min(left, TimeUnit.SECONDS.toNanos(1)));
    }
  }
}
