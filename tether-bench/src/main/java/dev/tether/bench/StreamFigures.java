package dev.tether.bench;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
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
import picocli.CommandLine.Option;

/**
 * Stream throughput side by side: Tether's streams against gRPC-java's, one connection per run, a
 * server stream and a bidirectional echo at 1 and 16 streams at once, with the server in a JVM of
 * its own and in this one; items/s, the items' age when they reach the subscriber (p50, p99), and
 * CPU per item, as one table per placement.
 */
@Command(
    name = "stream-figures",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Stream benchmark of Tether against gRPC-java, one loopback connection per run.",
      "Shapes: FEED, a server stream of stamped items, sent as fast as flow control",
      "lets them; ECHO, a bidirectional stream whose server sends back each item.",
      "Age: now minus the item's stamp, at the client's subscriber (FEED: since the",
      "server made it; ECHO: the round trip). Exit status 1 when a run failed."
    })
public final class StreamFigures implements Callable<Integer> {

  @Option(
      names = "--warmup",
      converter = DurationConverter.class,
      defaultValue = "2s",
      description = "Unmeasured time per run, after the streams open (default: ${DEFAULT-VALUE}).")
  Duration warmup;

  @Option(
      names = "--measure",
      converter = DurationConverter.class,
      defaultValue = "5s",
      description = "Measured phase per run (default: ${DEFAULT-VALUE}).")
  Duration measure;

  @Option(
      names = "--streams",
      split = ",",
      paramLabel = "N",
      description = "Streams at once on the connection (default: ${DEFAULT-VALUE}).")
  List<Integer> streams = new ArrayList<>(List.of(1, 16));

  @Option(
      names = "--shapes",
      split = ",",
      paramLabel = "SHAPE",
      description = "FEED (server stream), ECHO (bidi), or both (default: ${DEFAULT-VALUE}).")
  List<StreamScenario.Shape> shapes =
      new ArrayList<>(List.of(StreamScenario.Shape.FEED, StreamScenario.Shape.ECHO));

  @Option(
      names = "--item-bytes",
      defaultValue = "64",
      description = "Bytes per item, at least 8 (default: ${DEFAULT-VALUE}).")
  int itemBytes;

  @Option(
      names = "--systems",
      split = ",",
      paramLabel = "NAME",
      description =
          "tether, grpc-direct, grpc-default, tether-grpc-direct, tether-grpc-default, and Tether's"
              + " gRPC channel against either server: tchan>grpc-direct, tchan>grpc-default,"
              + " tchan>tether-grpc-direct, tchan>tether-grpc-default (default: all).")
  List<String> systems = new ArrayList<>();

  @Option(
      names = "--placement",
      split = ",",
      paramLabel = "WHERE",
      description = "TWO_PROCESS, ONE_JVM or both (default: ${DEFAULT-VALUE}).")
  List<Placement> placements = new ArrayList<>(List.of(Placement.TWO_PROCESS, Placement.ONE_JVM));

  @Option(
      names = "--rounds",
      defaultValue = "1",
      description =
          "Run everything N times, report each row's round with the most items/s (default: "
              + "${DEFAULT-VALUE}).")
  int rounds;

  private final PrintStream out;
  private final PrintStream progress;

  StreamFigures(PrintStream out, PrintStream progress) {
    this.out = out;
    this.progress = progress;
  }

  public static void main(String[] args) {
    int status = new CommandLine(new StreamFigures(System.out, System.err)).execute(args);
    System.exit(status); // the clients' and servers' pools are closed; do not wait for stragglers
  }

  @Override
  public Integer call() throws Exception {
    if (itemBytes < StampedItems.MIN_BYTES || rounds < 1 || streams.stream().anyMatch(n -> n < 1)) {
      throw new CommandLine.ParameterException(
          new CommandLine(this), "--item-bytes needs 8 or more, --rounds and --streams 1 or more");
    }
    List<StreamScenario> scenarios = scenarios();
    progress.printf(
        Locale.ROOT,
        "stream-figures: %d runs, warm-up %s + measure %s each, %d B items; Java %s, %d cores, "
            + "load average %.2f%n",
        scenarios.size() * rounds,
        DurationConverter.format(warmup),
        DurationConverter.format(measure),
        itemBytes,
        Runtime.version(),
        Runtime.getRuntime().availableProcessors(),
        loadAverage());
    List<StreamRunner.Result> best = new ArrayList<>(Collections.nCopies(scenarios.size(), null));
    try (ServerProcessPool pool = new ServerProcessPool()) {
      StreamRunner runner = new StreamRunner(warmup, measure, itemBytes, pool);
      Set<String> warmed = new HashSet<>();
      for (int round = 1; round <= rounds; round++) {
        for (int i = 0; i < scenarios.size(); i++) {
          StreamScenario scenario = scenarios.get(i);
          if (warmed.add(scenario.system().name() + scenario.placement())) {
            progress.println(
                "warming up "
                    + scenario.system().name()
                    + " ("
                    + scenario.placement().label()
                    + ")");
            for (StreamScenario.Shape shape : shapes) {
              runner.warmUp(
                  new StreamScenario(scenario.system(), shape, 16, scenario.placement()),
                  warmup.plus(measure));
            }
          }
          StreamRunner.Result result = runner.run(scenario);
          progress.printf(
              Locale.ROOT,
              "[%s round %d] %,.0f items/s, p99 %.0f us, %.2f us CPU per item, load average "
                  + "%.2f%s%n",
              scenario,
              round,
              result.itemsPerSecond(),
              result.percentileMicros(99),
              result.totalCpuMicrosPerItem(),
              loadAverage(),
              result.clean() ? "" : " (" + result.problem() + ")");
          StreamRunner.Result kept = best.get(i);
          if (kept == null
              || !kept.clean()
              || result.clean() && result.itemsPerSecond() > kept.itemsPerSecond()) {
            best.set(i, result);
          }
        }
      }
    }
    out.println();
    if (rounds > 1) {
      out.println("Each row: the round with the most items/s of " + rounds + " rounds.");
    }
    for (Placement placement : placements) {
      out.println(
          "Server placement: "
              + placement.label()
              + ", "
              + itemBytes
              + " B items"
              + (placement == Placement.TWO_PROCESS
                  ? " (cpu/item = client + server, each in us)"
                  : " (cpu/item: the one JVM, in us)"));
      out.print(
          StreamTable.render(
              best.stream().filter(r -> r.scenario().placement() == placement).toList()));
      out.println();
    }
    return best.stream().allMatch(StreamRunner.Result::clean) ? 0 : 1;
  }

  private List<StreamScenario> scenarios() {
    List<StreamScenario.StreamSystem> selected =
        StreamScenario.systems().stream()
            .filter(
                s ->
                    systems.isEmpty()
                        || systems.stream()
                            .anyMatch(
                                t ->
                                    t.trim()
                                        .replace('-', ' ')
                                        .equalsIgnoreCase(s.name().replace('-', ' '))))
            .toList();
    if (selected.isEmpty()) {
      throw new CommandLine.ParameterException(
          new CommandLine(this),
          "--systems selects none of tether, grpc-direct, grpc-default, tether-grpc-direct,"
              + " tether-grpc-default, tchan>grpc-direct, tchan>grpc-default,"
              + " tchan>tether-grpc-direct, tchan>tether-grpc-default");
    }
    List<StreamScenario> scenarios = new ArrayList<>();
    for (Placement placement : placements) {
      for (StreamScenario.StreamSystem system : selected) {
        for (StreamScenario.Shape shape : shapes) {
          for (int n : streams) {
            scenarios.add(new StreamScenario(system, shape, n, placement));
          }
        }
      }
    }
    return scenarios;
  }

  private static double loadAverage() {
    return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
  }
}
