package dev.tether.cli;

import dev.tether.cli.demo.DemoReport;
import dev.tether.cli.demo.DemoRun;
import dev.tether.cli.demo.DemoScenario;
import dev.tether.cli.demo.FrozenPeerPrinter;
import dev.tether.cli.demo.FrozenPeerReport;
import dev.tether.cli.demo.FrozenPeerRun;
import dev.tether.cli.demo.FrozenPeerScenario;
import dev.tether.cli.demo.Scenario;
import dev.tether.cli.demo.Scenarios;
import dev.tether.cli.demo.ShowcasePrinter;
import dev.tether.cli.demo.ShowcaseReport;
import dev.tether.cli.demo.ShowcaseRun;
import dev.tether.cli.demo.ShowcaseScenario;
import dev.tether.cli.demo.SummaryPrinter;
import dev.tether.cli.demo.Timeline;
import java.io.InputStream;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code tether demo}: three servers and a balancing client in one process, disruptions, and a
 * summary that checks what the servers did against what the callers were told; or, for {@code
 * frozen-peer}, one server behind a freezing network and the time the client's heartbeats take to
 * notice.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Shows failover: 3 servers, a balancing client, a disruption, the truth about each call.",
      "",
      "Starts 3 servers on loopback and one client balancing every call over all of them, runs"
          + " callers (put/get: idempotent; increment: not) while a scenario disrupts the cluster,"
          + " then prints what the callers were told next to what the servers did.",
      "",
      "Scenarios: showcase (the default) puts each server behind a fault proxy and runs six "
          + "phases one"
          + " after the other: an abrupt kill, a network freeze, a graceful drain, a rolling "
          + "restart, a live"
          + " stream through a connection reset and a primary failover, with a live table and the "
          + "status page,"
          + " each phase judged on its own (--seconds is the whole run, 48 by default); "
          + "abrupt-stop closes server-2 abruptly midway; crash-during-increment closes it"
          + " while it executes an increment; graceful-stop shuts it down gracefully midway;"
          + " steady disrupts nothing; rolling-restart shuts each server down gracefully in turn "
          + "and"
          + " restarts it on the same port (8 callers; expected: no call fails, no increment runs"
          + " twice); abrupt-kills closes each server abruptly in turn and restarts it (8 callers;"
          + " expected: idempotent calls never fail, increments fail only as "
          + "ConnectionLostException"
          + " mayHaveExecuted=true, and never run more often than acknowledged plus those);"
          + " frozen-peer freezes the network between one client and its server and times the"
          + " client's heartbeat detection against idleTimeout + readerIdle (at most about 20 s "
          + "with"
          + " the default heartbeat).",
      "",
      "A scenario with expectations ends with a verdict; the exit code is 1 when one was not met.",
      ""
    })
public final class DemoCommand implements Callable<Integer> {
  private static final int SERVERS = 3;

  @Spec private CommandSpec spec;

  /** How long the cluster scenarios call when --seconds is not given; the showcase has its own. */
  private static final int DEFAULT_SECONDS = 10;

  /** The cluster scenarios' invocation timeout when --call-timeout is not given. */
  private static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(2);

  @Option(
      names = "--seconds",
      paramLabel = "<n>",
      description =
          "How long the callers call, 1 to 600 (default: 10, 48 for showcase; not for "
              + "frozen-peer).")
  private Integer seconds;

  @Option(
      names = "--callers",
      paramLabel = "<n>",
      description =
          "How many callers call at once, 1 to 64 (default: 8 for rolling-restart and abrupt-kills,"
              + " 6 for showcase, else 4; not for frozen-peer).")
  private Integer callers;

  @Option(
      names = "--scenario",
      defaultValue = "showcase",
      paramLabel = "<name>",
      completionCandidates = ScenarioNames.class,
      description = "What happens: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
  private String scenarioName;

  @Option(
      names = "--call-timeout",
      converter = DurationConverter.class,
      paramLabel = "<duration>",
      description =
          "Invocation timeout of each call (default: 2s, 5s for showcase; not for frozen-peer).")
  private Duration callTimeout;

  @Option(
      names = "--heartbeat-reader-idle",
      converter = DurationConverter.class,
      paramLabel = "<duration>",
      description =
          "frozen-peer only: the client's tether.heartbeat.readerIdle, ping after this much silence"
              + " (default: Tether's, 3s).")
  private Duration heartbeatReaderIdle;

  @Option(
      names = "--heartbeat-idle-timeout",
      converter = DurationConverter.class,
      paramLabel = "<duration>",
      description =
          "frozen-peer only: the client's tether.heartbeat.idleTimeout, dead after this much "
              + "silence"
              + " (default: Tether's, 10s).")
  private Duration heartbeatIdleTimeout;

  @Option(
      names = "--freeze-after",
      converter = DurationConverter.class,
      paramLabel = "<duration>",
      description =
          "frozen-peer only: when the network freezes after the caller started (default: 2s).")
  private Duration freezeAfter;

  @Option(
      names = "--zookeeper",
      paramLabel = "<embedded|host:port[,host:port]>",
      description =
          "Register the servers in ZooKeeper and let the client find them there; 'embedded' runs "
              + "one"
              + " in this process on 127.0.0.1 (not for frozen-peer).")
  private String zookeeper;

  @Option(
      names = "--admin",
      paramLabel = "<host:port>",
      description =
          "Serve the live status page there during the run, e.g. 127.0.0.1:0; it prints the URL"
              + " (default for showcase: 127.0.0.1:0; else none; not for frozen-peer).")
  private String admin;

  @Option(
      names = "--hold",
      description =
          "With --admin: when the callers stop, keep the servers and the page up until Enter is "
              + "pressed.")
  private boolean hold;

  /** Where --hold waits for Enter; tests replace it. */
  InputStream stdin = System.in;

  /**
   * Whether the output is a terminal that can redraw the showcase's table in place; false for
   * pipes, logs and tests.
   */
  boolean terminal = System.console() != null && !"dumb".equals(System.getenv("TERM"));

  @Override
  public Integer call() throws InterruptedException {
    DemoScenario scenario =
        Scenarios.byName(scenarioName)
            .orElseThrow(
                () ->
                    new ParameterException(
                        spec.commandLine(),
                        "unknown scenario '"
                            + scenarioName
                            + "'; known: "
                            + String.join(", ", Scenarios.names())));
    PrintWriter out = spec.commandLine().getOut();
    if (scenario instanceof FrozenPeerScenario frozenPeer) {
      return runFrozenPeer(frozenPeer, out);
    }
    if (scenario instanceof ShowcaseScenario showcase) {
      return runShowcase(showcase, out);
    }
    return runCluster((Scenario) scenario, out);
  }

  private int runCluster(Scenario scenario, PrintWriter out) throws InterruptedException {
    refuseOptionsOf(
        "frozen-peer",
        scenario,
        "--heartbeat-reader-idle",
        "--heartbeat-idle-timeout",
        "--freeze-after");
    DemoRun.Settings settings = clusterSettings(scenario);
    out.printf(
        Locale.ROOT,
        "tether demo: %d servers on loopback%s, %d callers, %d s; scenario %s:%n  %s%n",
        SERVERS,
        zookeeper == null ? "" : " registered in ZooKeeper (" + zookeeper + ")",
        settings.callers(),
        settings.duration().toSeconds(),
        scenario.name(),
        scenario.description());
    out.flush();
    DemoReport report;
    if (admin == null) {
      report = new DemoRun(settings, printLive(out)).run();
    } else {
      try (DemoStatusPage page =
          new DemoStatusPage(StatusPageOption.builder(admin, null), out, hold, stdin)) {
        report = new DemoRun(settings, printLive(out), page).run();
      }
    }
    SummaryPrinter.print(report, out);
    return report.expectationsMet() ? ExitCode.OK : ExitCode.SOFTWARE;
  }

  private int runShowcase(ShowcaseScenario scenario, PrintWriter out) throws InterruptedException {
    refuseOptionsOf(
        "frozen-peer",
        scenario,
        "--heartbeat-reader-idle",
        "--heartbeat-idle-timeout",
        "--freeze-after");
    refuseOptionsOf("the other cluster scenarios", scenario, "--zookeeper");
    int totalSeconds =
        checkedSeconds(seconds == null ? (int) scenario.defaultDuration().toSeconds() : seconds);
    ShowcaseRun.Settings settings =
        new ShowcaseRun.Settings(
            scenario,
            checkedCallers(scenario.defaultCallers()),
            Duration.ofSeconds(totalSeconds),
            checkedCallTimeout(ShowcaseRun.CALL_TIMEOUT),
            terminal);
    out.printf(
        Locale.ROOT,
        "tether demo: %d servers on loopback behind fault proxies, %d callers, %d s; scenario "
            + "%s:%n  %s%n",
        SERVERS,
        settings.callers(),
        totalSeconds,
        scenario.name(),
        scenario.description());
    out.flush();
    ShowcaseReport report;
    try (DemoStatusPage page =
        new DemoStatusPage(
            StatusPageOption.builder(admin == null ? "127.0.0.1:0" : admin, null),
            out,
            hold,
            stdin)) {
      report = new ShowcaseRun(settings, out, page).run();
    }
    ShowcasePrinter.print(report, out);
    return report.expectationsMet() ? ExitCode.OK : ExitCode.SOFTWARE;
  }

  private int runFrozenPeer(FrozenPeerScenario scenario, PrintWriter out)
      throws InterruptedException {
    refuseOptionsOf(
        "the cluster scenarios",
        scenario,
        "--seconds",
        "--callers",
        "--call-timeout",
        "--zookeeper",
        "--admin",
        "--hold");
    // Nothing set unless asked: the run answers for Tether's defaults, as a user gets them.
    Properties client = new Properties();
    if (matched("--heartbeat-reader-idle")) {
      client.setProperty(
          "tether.heartbeat.readerIdle",
          positiveMillis("--heartbeat-reader-idle", heartbeatReaderIdle));
    }
    if (matched("--heartbeat-idle-timeout")) {
      client.setProperty(
          "tether.heartbeat.idleTimeout",
          positiveMillis("--heartbeat-idle-timeout", heartbeatIdleTimeout));
    }
    Duration freeze = scenario.freezeAfter();
    if (matched("--freeze-after")) {
      positiveMillis("--freeze-after", freezeAfter);
      freeze = freezeAfter;
    }
    out.printf(
        Locale.ROOT,
        "tether demo: 1 server behind a fault proxy on loopback, 1 caller; scenario %s:%n  %s%n",
        scenario.name(),
        scenario.description());
    out.flush();
    FrozenPeerReport report =
        new FrozenPeerRun(new FrozenPeerRun.Settings(scenario, freeze, client), printLive(out))
            .run();
    FrozenPeerPrinter.print(report, out);
    return report.verdict().met() ? ExitCode.OK : ExitCode.SOFTWARE;
  }

  private static Consumer<Timeline.Event> printLive(PrintWriter out) {
    return event -> {
      out.printf(Locale.ROOT, "  %6.2f s  %s%n", event.at().toNanos() / 1e9, event.what());
      out.flush();
    };
  }

  private DemoRun.Settings clusterSettings(Scenario scenario) {
    int totalSeconds = checkedSeconds(seconds == null ? DEFAULT_SECONDS : seconds);
    return new DemoRun.Settings(
        scenario,
        SERVERS,
        checkedCallers(scenario.defaultCallers()),
        Duration.ofSeconds(totalSeconds),
        checkedCallTimeout(DEFAULT_CALL_TIMEOUT),
        zookeeper);
  }

  private int checkedSeconds(int n) {
    if (n < 1 || n > 600) {
      throw new ParameterException(spec.commandLine(), "--seconds must be within 1..600, not " + n);
    }
    return n;
  }

  private int checkedCallers(int scenarioDefault) {
    int callerCount = callers == null ? scenarioDefault : callers;
    if (callerCount < 1 || callerCount > 64) {
      throw new ParameterException(
          spec.commandLine(), "--callers must be within 1..64, not " + callerCount);
    }
    return callerCount;
  }

  /** The --call-timeout given, or {@code whenNotGiven}. */
  private Duration checkedCallTimeout(Duration whenNotGiven) {
    if (callTimeout == null) {
      return whenNotGiven;
    }
    if (callTimeout.isZero() || callTimeout.isNegative()) {
      throw new ParameterException(
          spec.commandLine(), "--call-timeout must be positive: the demo must end");
    }
    return callTimeout;
  }

  /** Options that only another kind of scenario reads are refused rather than silently ignored. */
  private void refuseOptionsOf(String owner, DemoScenario scenario, String... options) {
    for (String option : List.of(options)) {
      if (matched(option)) {
        throw new ParameterException(
            spec.commandLine(),
            option + " is for " + owner + ", not for scenario " + scenario.name());
      }
    }
  }

  private boolean matched(String option) {
    return spec.commandLine().getParseResult().hasMatchedOption(option);
  }

  /**
   * {@code d} as a property value. Zero or infinite (null) would turn the heartbeat rule off or
   * never freeze, and the scenario must measure something and end.
   */
  private String positiveMillis(String option, Duration d) {
    if (d == null || d.isZero() || d.isNegative()) {
      throw new ParameterException(spec.commandLine(), option + " must be a positive duration");
    }
    return d.toMillis() + "ms";
  }

  /** The scenario names, for help text and shell completion. */
  static final class ScenarioNames implements Iterable<String> {
    @Override
    public Iterator<String> iterator() {
      return Scenarios.names().iterator();
    }
  }
}
