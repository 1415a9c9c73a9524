package dev.tether.cli.demo;

import dev.tether.LoadBalancing;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.cli.kv.DemoServer;
import dev.tether.cli.kv.KeyValue;
import dev.tether.cli.kv.KeyValueStore;
import dev.tether.observe.TetherEvent;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * One run of the showcase: three servers behind fault proxies, one client with a short heartbeat,
 * and the phases one after the other. Each phase has fresh callers and fresh counts, and starts
 * only when the previous phase's callers have stopped, so every call and every execution belongs to
 * exactly one phase. Every loop in it ends by time, the callers also by a call budget.
 */
public final class ShowcaseRun {
  private static final int SERVERS = 3;

  /** Generous enough never to bind on loopback, yet finite. */
  private static final long MAX_CALLS_PER_CALLER_PER_SECOND = 200_000;

  private static final int WARM_UP_ROUNDS = 50;

  /**
   * The client's heartbeat: ping after 250 ms of silence, give up after 750 ms more, so a frozen
   * peer is found within a second, well inside the invocation timeout of the calls it holds.
   */
  static final Duration HEARTBEAT_READER_IDLE = Duration.ofMillis(250);

  static final Duration HEARTBEAT_IDLE_TIMEOUT = Duration.ofMillis(750);

  /**
   * The showcase's invocation timeout unless --call-timeout says otherwise. A call written to the
   * frozen server waits for the heartbeat to find it dead (readerIdle + idleTimeout, 1 s) before it
   * moves on; with 2 s only one second was left for the move, the retry and whatever a busy machine
   * adds (a starved event loop fires the heartbeat late, a stalled JVM answers late), and a call
   * past its timeout fails the phase. Five times the detection time holds on a loaded machine.
   */
  public static final Duration CALL_TIMEOUT = Duration.ofSeconds(5);

  /** The failover proxy's reroute rounds: 10 rounds 50 ms apart, half a second in all. */
  private static final int REROUTE_RETRIES = 10;

  private static final Duration REROUTE_INTERVAL = Duration.ofMillis(50);

  /**
   * What to run.
   *
   * @param duration all phases together, split evenly between them
   * @param ansi true when the output is a terminal: the live table is redrawn in place
   */
  public record Settings(
      ShowcaseScenario scenario,
      int callers,
      Duration duration,
      Duration callTimeout,
      boolean ansi) {
    public Settings {
      Objects.requireNonNull(scenario);
      if (callers < 1
          || duration.isNegative()
          || duration.isZero()
          || callTimeout.isNegative()
          || callTimeout.isZero()) {
        throw new IllegalArgumentException("callers >= 1 and positive durations are required");
      }
    }

    Duration phaseDuration() {
      return duration.dividedBy(scenario.phases().size());
    }
  }

  private final Settings settings;
  private final PrintWriter out;

  /** Null when nobody watches. */
  private final DemoRun.Watcher watcher;

  private final LongSupplier nanoClock = System::nanoTime;

  public ShowcaseRun(Settings settings, PrintWriter out, DemoRun.Watcher watcher) {
    this.settings = settings;
    this.out = out;
    this.watcher = watcher;
  }

  public ShowcaseReport run() throws InterruptedException {
    KeyValueStore store = new KeyValueStore();
    ClientEvents events = new ClientEvents();
    LiveView view = new LiveView(settings, nanoClock);
    LiveTable table = new LiveTable(out, settings.ansi(), view::rows);
    Timeline timeline = new Timeline(nanoClock, table::event);
    Tether.Builder client =
        Tether.builder()
            .listener(events)
            .property("tether.heartbeat.readerIdle", HEARTBEAT_READER_IDLE.toMillis() + "ms")
            .property("tether.heartbeat.idleTimeout", HEARTBEAT_IDLE_TIMEOUT.toMillis() + "ms");
    if (watcher != null) {
      client.listener(watcher.listener());
    }
    // Resources close in reverse order: the table stops, then the client, then the servers.
    try (DemoCluster cluster =
            DemoCluster.startBehindFaultProxies(
                SERVERS, store, timeline, watcher == null ? null : watcher.listener());
        Tether tether = client.build();
        table) {
      if (watcher != null) {
        watcher.clientStarted(tether, cluster::servers);
      }
      Proxy balanced = balancedProxy(tether, cluster, settings.callTimeout());
      int warmUpCalls = cluster.warmUp(tether, WARM_UP_ROUNDS);
      view.watch(cluster, tether, events);
      timeline.start();
      timeline.record(
          SERVERS
              + " servers up behind fault proxies, "
              + settings.callers()
              + " callers per phase");
      List<ShowcaseReport.PhaseReport> phases = new ArrayList<>();
      for (int i = 0; i < settings.scenario().phases().size(); i++) {
        phases.add(
            runPhase(i, cluster, tether, balanced, events, store, timeline, view, warmUpCalls));
      }
      view.finished();
      // The last figures stay on the screen, also while --hold keeps everything up.
      table.draw();
      if (watcher != null) {
        watcher.holding();
      }
      return new ShowcaseReport(settings.scenario(), timeline.events(), phases);
    }
  }

  /**
   * The callers' proxy: a node group over every server (round robin, node health, ejection), which
   * the status page shows as its nodes.
   */
  static Proxy balancedProxy(Tether tether, DemoCluster cluster, Duration callTimeout) {
    return tether
        .proxy(cluster.proxyString(DemoServer.KV))
        .withLoadBalancing(LoadBalancing.ROUND_ROBIN)
        .withInvocationTimeout(callTimeout);
  }

  private ShowcaseReport.PhaseReport runPhase(
      int index,
      DemoCluster cluster,
      Tether tether,
      Proxy balanced,
      ClientEvents events,
      KeyValueStore store,
      Timeline timeline,
      LiveView view,
      int warmUpCalls)
      throws InterruptedException {
    ShowcaseScenario.Phase phase = settings.scenario().phases().get(index);
    long phaseNanos = settings.phaseDuration().toNanos();
    int firstEvent = timeline.events().size();
    timeline.record(
        String.format(
            "phase %d/%d, %s: %s",
            index + 1, settings.scenario().phases().size(), phase.name(), phase.announcement()));
    ClientTally tally = new ClientTally();
    cluster.nodes().forEach(DemoCluster.Node::startCounting);
    long counterBefore = store.counter(Workload.COUNTER);
    long retriesBefore = tether.status().retries();
    Map<TetherEvent.Kind, Map<String, Long>> eventsBefore = eventsByServer(events, cluster);
    List<String> stepFailures = new ArrayList<>();
    long start = nanoClock.getAsLong();
    List<Scenario.Step> steps = phase.steps();
    int next = 0;
    // Steps at the very start set the phase up (a cluster view to announce) before anyone calls.
    for (; next < steps.size() && steps.get(next).atFraction() == 0; next++) {
      perform(steps.get(next), cluster, stepFailures, timeline);
    }
    // A proxy of its own (own seeds, own connection) so the view it learns changes no other proxy:
    // it knows the primary only, and the alternates only from the view the servers announce.
    // Reroute rounds REROUTE_INTERVAL apart: a primary that just died is retried, then its
    // alternates,
    // for a while rather than in one burst that races the crash.
    Proxy primary =
        phase.throughPrimary()
            ? tether
                .proxy(cluster.proxyString(DemoServer.KV, Scenarios.PRIMARY))
                .withConnectionId("showcase-primary")
                .withInvocationTimeout(settings.callTimeout())
                .withMaxRerouteRetries(REROUTE_RETRIES)
                .withRerouteRetryInterval(REROUTE_INTERVAL)
            : null;
    Workload workload =
        new Workload(
            (primary == null ? balanced : primary).as(KeyValue.class),
            settings.callers(),
            MAX_CALLS_PER_CALLER_PER_SECOND * Math.max(1, settings.phaseDuration().toSeconds()),
            start + phaseNanos + settings.callTimeout().toNanos(),
            nanoClock,
            tally);
    view.phaseStarted(index, phase, tally);
    StreamWatch stream =
        phase.streamFrom() == null
            ? null
            : StreamWatch.open(tether, cluster, phase.streamFrom(), timeline);
    workload.start();
    try {
      for (; next < steps.size(); next++) {
        sleepUntil(start + (long) (steps.get(next).atFraction() * phaseNanos));
        perform(steps.get(next), cluster, stepFailures, timeline);
      }
      sleepUntil(start + phaseNanos);
    } finally {
      // Also when interrupted: callers must not outlive their phase.
      workload.requestStop();
    }
    boolean stoppedInTime = workload.awaitStopped(settings.callTimeout().plusSeconds(5));
    StreamFigures streamFigures = stream == null ? null : stream.stop();
    Duration elapsed = Duration.ofNanos(nanoClock.getAsLong() - start);
    view.phaseEnded(tally);
    PhaseEvidence evidence =
        new PhaseEvidence(
            minus(eventsByServer(events, cluster), eventsBefore),
            tether.status().retries() - retriesBefore,
            primary != null && primary.alternateWasUsed(),
            stepFailures,
            streamFigures);
    List<Timeline.Event> phaseEvents =
        timeline.events().subList(firstEvent, timeline.events().size());
    Scenario judged =
        new Scenario(
            phase.name(),
            phase.announcement(),
            settings.callers(),
            List.of(),
            settings.scenario().expectations());
    DemoReport report =
        DemoReport.collect(
            new DemoReport.Run(
                judged,
                settings.callers(),
                settings.phaseDuration(),
                elapsed,
                settings.callTimeout(),
                warmUpCalls,
                (primary == null ? balanced : primary).toString(),
                phaseEvents,
                stoppedInTime),
            cluster,
            tally,
            store.counter(Workload.COUNTER) - counterBefore);
    return new ShowcaseReport.PhaseReport(phase, report, evidence, phase.handled().apply(evidence));
  }

  /** A step that fails is part of the story and fails its phase's verdict, not the demo. */
  private static void perform(
      Scenario.Step step, DemoCluster cluster, List<String> failures, Timeline timeline) {
    try {
      step.action().perform(cluster);
    } catch (RuntimeException e) {
      failures.add("step failed: " + e);
      timeline.record("scenario step failed: " + e);
    }
  }

  /** The client's events so far by kind, then by the server their endpoint leads to. */
  static Map<TetherEvent.Kind, Map<String, Long>> eventsByServer(
      ClientEvents events, DemoCluster cluster) {
    Map<TetherEvent.Kind, Map<String, Long>> out = new EnumMap<>(TetherEvent.Kind.class);
    for (TetherEvent.Kind kind : TetherEvent.Kind.values()) {
      Map<String, Long> byServer = new TreeMap<>();
      events
          .byEndpoint(kind)
          .forEach(
              (endpoint, n) ->
                  byServer.merge(cluster.serverAt(endpoint).orElse(endpoint), n, Long::sum));
      out.put(kind, byServer);
    }
    return out;
  }

  private static Map<TetherEvent.Kind, Map<String, Long>> minus(
      Map<TetherEvent.Kind, Map<String, Long>> after,
      Map<TetherEvent.Kind, Map<String, Long>> before) {
    Map<TetherEvent.Kind, Map<String, Long>> out = new EnumMap<>(TetherEvent.Kind.class);
    after.forEach(
        (kind, byServer) -> {
          Map<String, Long> diff = new TreeMap<>();
          byServer.forEach(
              (server, n) -> {
                long d = n - before.getOrDefault(kind, Map.of()).getOrDefault(server, 0L);
                if (d > 0) {
                  diff.put(server, d);
                }
              });
          out.put(kind, diff);
        });
    return out;
  }

  private void sleepUntil(long targetNanos) throws InterruptedException {
    DemoRun.sleepUntil(nanoClock, targetNanos);
  }
}
