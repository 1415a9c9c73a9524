package dev.tether.cli;

import dev.tether.cli.demo.DemoReport;
import dev.tether.cli.demo.DemoRun;
import dev.tether.cli.demo.Scenario;
import dev.tether.cli.demo.Scenarios;
import dev.tether.cli.demo.SummaryPrinter;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Iterator;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code tether demo}: three servers and a balancing client in one process, a disruption midway,
 * and a summary that checks what the servers did against what the callers were told.
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
        "Scenarios: abrupt-stop closes server-2 abruptly midway; crash-during-increment closes it"
            + " while it executes an increment; graceful-stop shuts it down gracefully midway;"
            + " steady disrupts nothing.",
        ""
    })
public final class DemoCommand implements Callable<Integer> {
  private static final int SERVERS = 3;

  @Spec
  private CommandSpec spec;

  @Option(names = "--seconds", defaultValue = "10", paramLabel = "<n>",
      description = "How long the callers call, 1 to 600 (default: ${DEFAULT-VALUE}).")
  private int seconds;

  @Option(names = "--callers", defaultValue = "4", paramLabel = "<n>",
      description = "How many callers call at once, 1 to 64 (default: ${DEFAULT-VALUE}).")
  private int callers;

  @Option(names = "--scenario", defaultValue = "abrupt-stop", paramLabel = "<name>",
      completionCandidates = ScenarioNames.class,
      description = "What happens to the cluster: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
  private String scenarioName;

  @Option(names = "--call-timeout", defaultValue = "2s", converter = DurationConverter.class, paramLabel = "<duration>",
      description = "Invocation timeout of each call (default: ${DEFAULT-VALUE}).")
  private Duration callTimeout;

  @Override
  public Integer call() throws InterruptedException {
    DemoRun.Settings settings = settings();
    PrintWriter out = spec.commandLine().getOut();
    out.printf(Locale.ROOT, "tether demo: %d servers on loopback, %d callers, %d s; scenario %s:%n  %s%n",
        SERVERS, callers, seconds, settings.scenario().name(), settings.scenario().description());
    out.flush();
    DemoReport report = new DemoRun(settings, event -> {
      out.printf(Locale.ROOT, "  %6.2f s  %s%n", event.at().toNanos() / 1e9, event.what());
      out.flush();
    }).run();
    SummaryPrinter.print(report, out);
    return ExitCode.OK;
  }

  private DemoRun.Settings settings() {
    if (seconds < 1 || seconds > 600) {
      throw new ParameterException(spec.commandLine(), "--seconds must be within 1..600, not " + seconds);
    }
    if (callers < 1 || callers > 64) {
      throw new ParameterException(spec.commandLine(), "--callers must be within 1..64, not " + callers);
    }
    if (callTimeout == null || callTimeout.isZero()) {
      throw new ParameterException(spec.commandLine(), "--call-timeout must be positive: the demo must end");
    }
    Scenario scenario = Scenarios.byName(scenarioName).orElseThrow(() -> new ParameterException(
        spec.commandLine(), "unknown scenario '" + scenarioName + "'; known: " + String.join(", ", Scenarios.names())));
    return new DemoRun.Settings(scenario, SERVERS, callers, Duration.ofSeconds(seconds), callTimeout);
  }

  /** The scenario names, for help text and shell completion. */
  static final class ScenarioNames implements Iterable<String> {
    @Override
    public Iterator<String> iterator() {
      return Scenarios.names().iterator();
    }
  }
}
