package dev.tether.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The side-by-side load benchmark: every selected system, payload and concurrency, one after
 * another over a single loopback connection, with the server in a JVM of its own (started by the
 * benchmark, one per system) and with the server in this JVM; then one table per placement.
 */
@Command(
    name = "tether-bench",
    mixinStandardHelpOptions = true,
    version = "tether-bench 0.1.0-SNAPSHOT",
    sortOptions = false,
    description = {
      "Closed-loop echo benchmark of Tether, gRPC-java, Apache Dubbo and raw Netty over one "
          + "loopback connection.",
      "For each system x payload x concurrency: a warm-up phase, then a measured phase.",
      "Exit status 1 when a run had failed or stuck calls."
    })
public final class BenchMain implements Callable<Integer> {

  private static final Duration DEFAULT_WARMUP = Duration.ofSeconds(5);
  private static final Duration DEFAULT_MEASURE = Duration.ofSeconds(10);
  private static final Duration QUICK_WARMUP = Duration.ofSeconds(1);
  private static final Duration QUICK_MEASURE = Duration.ofSeconds(2);

  @Option(
      names = "--quick",
      description =
          "Warm-up 1s and measure 2s per run (about a minute in all), unless set explicitly.")
  boolean quick;

  @Option(
      names = "--systems",
      split = ",",
      paramLabel = "NAME",
      description =
          "Systems to run, by family (grpc) or name (grpc-direct, \"grpc direct\"); default: all. "
              + "See --list.")
  List<String> systems = new ArrayList<>();

  @Option(
      names = "--payloads",
      split = ",",
      paramLabel = "BYTES",
      description = "Request sizes in bytes (default: ${DEFAULT-VALUE}).")
  List<Integer> payloads = new ArrayList<>(List.of(64, 4096));

  @Option(
      names = "--concurrency",
      split = ",",
      paramLabel = "N",
      description = "Outstanding calls over the one connection (default: ${DEFAULT-VALUE}).")
  List<Integer> concurrency = new ArrayList<>(List.of(1, 16, 128));

  @Option(
      names = "--warmup",
      converter = DurationConverter.class,
      paramLabel = "TIME",
      description =
          "Warm-up per run: 500ms, 5s, 1min, or plain seconds (default: 5s, --quick: 1s).")
  Duration warmup;

  @Option(
      names = "--measure",
      converter = DurationConverter.class,
      paramLabel = "TIME",
      description = "Measured phase per run, same forms as --warmup (default: 10s, --quick: 2s).")
  Duration measure;

  @Option(
      names = "--drain-timeout",
      converter = DurationConverter.class,
      paramLabel = "TIME",
      defaultValue = "10s",
      description =
          "How long outstanding calls may take to return after the measured phase (default: "
              + "${DEFAULT-VALUE}).")
  Duration drainTimeout;

  @Option(
      names = "--placement",
      split = ",",
      paramLabel = "WHERE",
      description =
          "Where servers run: TWO_PROCESS (a server JVM per system, started here), ONE_JVM, or "
              + "both "
              + "(default: ${DEFAULT-VALUE}).")
  List<Placement> placements = new ArrayList<>(List.of(Placement.TWO_PROCESS, Placement.ONE_JVM));

  @Option(
      names = "--rounds",
      paramLabel = "N",
      defaultValue = "1",
      description =
          "Run the whole matrix N times and report, per row, the round with the most calls/s: "
              + "other load on the machine only ever slows a run down (default: ${DEFAULT-VALUE}).")
  int rounds;

  @Option(
      names = "--csv",
      paramLabel = "FILE",
      description = "Also write the results as CSV to FILE.")
  Path csvFile;

  @Option(names = "--list", description = "List the known systems and exit.")
  boolean list;

  @Spec CommandSpec spec;

  private final PrintStream out;
  private final PrintStream progress;

  BenchMain(PrintStream out, PrintStream progress) {
    this.out = out;
    this.progress = progress;
  }

  public static void main(String[] args) {
    CommandLine commandLine = new CommandLine(new BenchMain(System.out, System.err));
    System.exit(commandLine.execute(args));
  }

  @Override
  public Integer call() throws Exception {
    List<SystemSpec> catalog = SystemCatalog.all();
    if (list) {
      catalog.forEach(
          spec ->
              out.println(
                  spec.description().isEmpty()
                      ? spec.name()
                      : String.format(Locale.ROOT, "%-26s %s", spec.name(), spec.description())));
      return 0;
    }
    List<Scenario> scenarios = scenarios(selectSystems(catalog));
    Duration warmupTime = warmup != null ? warmup : quick ? QUICK_WARMUP : DEFAULT_WARMUP;
    Duration measureTime = measure != null ? measure : quick ? QUICK_MEASURE : DEFAULT_MEASURE;
    progress.println(header(scenarios.size() * rounds, warmupTime, measureTime));

    Outcome outcome;
    try (ServerProcessPool serverProcesses = new ServerProcessPool()) {
      LoadGenerator generator =
          new LoadGenerator(
              warmupTime,
              measureTime,
              drainTimeout,
              NanoClock.SYSTEM,
              scenario -> newSystem(scenario, serverProcesses),
              CpuClock.PROCESS);
      outcome = runRounds(generator, scenarios, warmupTime.plus(measureTime));
    }
    out.println();
    if (rounds > 1) {
      out.println("Each row: the round with the most calls/s of " + rounds + " rounds.");
    }
    for (Placement placement : placements) {
      out.println(
          "Server placement: "
              + placement.label()
              + (placement == Placement.TWO_PROCESS
                  ? " (cpu/call = client + server, each in us)"
                  : " (cpu/call: the one JVM, in us)"));
      out.print(
          ResultTable.render(
              outcome.reported().stream()
                  .filter(result -> result.scenario().placement() == placement)
                  .toList()));
      out.println();
    }
    if (csvFile != null) {
      writeCsv(outcome.reported());
    }
    return outcome.allClean() ? 0 : 1;
  }

  private static BenchSystem newSystem(Scenario scenario, ServerProcessPool serverProcesses) {
    return switch (scenario.placement()) {
      case TWO_PROCESS -> new TwoProcessSystem(serverProcesses, scenario.system());
      case ONE_JVM -> scenario.system().inJvm();
    };
  }

  /**
   * What the rounds produced: the result reported for each scenario, and whether every run was
   * clean.
   */
  private record Outcome(List<RunResult> reported, boolean allClean) {}

  private Outcome runRounds(
      LoadGenerator generator, List<Scenario> scenarios, Duration systemWarmup) throws Exception {
    List<RunResult> best = new ArrayList<>(Collections.nCopies(scenarios.size(), null));
    Set<String> warmedUp = new HashSet<>();
    boolean allClean = true;
    int done = 0;
    for (int round = 1; round <= rounds; round++) {
      for (int i = 0; i < scenarios.size(); i++) {
        Scenario scenario = scenarios.get(i);
        if (warmedUp.add(scenario.system().name() + " " + scenario.placement())) {
          warmUp(generator, scenario.system(), scenario.placement(), systemWarmup);
        }
        RunResult result = generator.run(scenario);
        allClean &= result.clean();
        best.set(i, better(best.get(i), result));
        progress.println(progressLine(++done, scenarios.size() * rounds, result));
      }
    }
    return new Outcome(List.copyOf(best), allClean);
  }

  /** The run to report of two runs of one scenario: a clean one, then the one with more calls/s. */
  private static RunResult better(RunResult kept, RunResult candidate) {
    if (kept == null || candidate.clean() && !kept.clean()) {
      return candidate;
    }
    if (kept.clean() && !candidate.clean()) {
      return kept;
    }
    return candidate.callsPerSecond() > kept.callsPerSecond() ? candidate : kept;
  }

  private List<SystemSpec> selectSystems(List<SystemSpec> catalog) {
    if (payloads.isEmpty() || payloads.stream().anyMatch(bytes -> bytes < 0)) {
      throw new ParameterException(spec.commandLine(), "--payloads needs sizes of 0 bytes or more");
    }
    if (placements.isEmpty()) {
      throw new ParameterException(
          spec.commandLine(), "--placement needs TWO_PROCESS, ONE_JVM or both");
    }
    if (rounds < 1) {
      throw new ParameterException(spec.commandLine(), "--rounds needs 1 or more");
    }
    if (concurrency.isEmpty() || concurrency.stream().anyMatch(outstanding -> outstanding < 1)) {
      throw new ParameterException(spec.commandLine(), "--concurrency needs counts of 1 or more");
    }
    try {
      return SystemCatalog.select(catalog, systems);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--systems: " + e.getMessage(), e);
    }
  }

  /**
   * Runs {@code system} unmeasured for {@code duration}, spread over every payload at the highest
   * concurrency, so that the JIT has compiled its code before its first measured scenario.
   */
  private void warmUp(
      LoadGenerator generator, SystemSpec system, Placement placement, Duration duration)
      throws Exception {
    progress.println(
        "warming up "
            + system.name()
            + " ("
            + placement.label()
            + ") for "
            + DurationConverter.format(duration));
    int outstanding = concurrency.stream().max(Integer::compare).orElse(1);
    Duration share = duration.dividedBy(payloads.size());
    for (int payloadBytes : payloads) {
      generator.warmUp(new Scenario(system, payloadBytes, outstanding, placement), share);
    }
  }

  private List<Scenario> scenarios(List<SystemSpec> selected) {
    List<Scenario> scenarios = new ArrayList<>();
    for (Placement placement : placements) {
      for (SystemSpec spec : selected) {
        for (int payloadBytes : payloads) {
          for (int outstanding : concurrency) {
            scenarios.add(new Scenario(spec, payloadBytes, outstanding, placement));
          }
        }
      }
    }
    return scenarios;
  }

  private static String header(int runs, Duration warmupTime, Duration measureTime) {
    return String.format(
        Locale.ROOT,
        "tether-bench: %d runs, warm-up %s + measure %s each; Java %s, %d cores, load average "
            + "%.2f, Netty transport %s",
        runs,
        DurationConverter.format(warmupTime),
        DurationConverter.format(measureTime),
        Runtime.version(),
        Runtime.getRuntime().availableProcessors(),
        loadAverage(),
        NettyTransport.best());
  }

  private static String progressLine(int done, int total, RunResult result) {
    return String.format(
        Locale.ROOT,
        "[%d/%d] %s: %,.0f calls/s, p99 %.1f us, %.2f us CPU per call, load average %.2f%s",
        done,
        total,
        result.scenario(),
        result.callsPerSecond(),
        result.p99Micros(),
        result.totalCpuMicrosPerCall(),
        loadAverage(),
        result.clean() ? "" : " (" + result.problem() + ")");
  }

  /**
   * The machine's one-minute load average: more than the core count means the figures are
   * disturbed.
   */
  private static double loadAverage() {
    return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
  }

  private void writeCsv(List<RunResult> results) throws IOException {
    Files.writeString(csvFile, ResultTable.csv(results), StandardCharsets.UTF_8);
    progress.println("wrote " + csvFile);
  }
}
