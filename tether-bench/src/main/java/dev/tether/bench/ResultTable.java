package dev.tether.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Lays results out as the text table printed at the end of a run and as CSV.
 *
 * <p>Beside calls/s and latencies each row shows the CPU time per call: the client's (this process)
 * and the server's (its own process) when they run apart, their sum otherwise. Once Tether rows are
 * present, ratio columns compare each Tether row's calls/s with the matching run of the same
 * payload, concurrency and placement: gRPC in the same setting ({@code tether direct} against
 * {@code grpc direct}, {@code tether default} against {@code grpc default}, {@code tether typed}
 * against {@code grpc protobuf default}), Dubbo ({@code dubbo typed} for typed rows, {@code dubbo
 * bytes} otherwise), raw Netty, and for typed rows {@code tether default}. A Tether server speaking
 * gRPC ({@code tether-grpc direct}, {@code tether-grpc default}) is compared the same way, so its
 * Tether/gRPC column sets it against gRPC-java's own server under the same client; so are Tether's
 * gRPC channel's rows ({@code tchan>grpc}, {@code tchan>tether-grpc}), against gRPC-java's client
 * and server.
 */
final class ResultTable {

  private static final String ROW_FORMAT = "%-26s %7s %4s %10s %8s %8s %9s %7s %7s %7s";
  private static final String RATIO_FORMAT = " %11s %12s %10s %13s";
  private static final String TYPED_SETTING = "typed";

  private ResultTable() {}

  /** The table, one line per result, followed by a line per result that had a problem. */
  static String render(List<RunResult> results) {
    boolean ratios = hasTetherRows(results);
    StringBuilder table = new StringBuilder();
    table.append(
        String.format(
            Locale.ROOT,
            ROW_FORMAT,
            "system",
            "payload",
            "conc",
            "calls/s",
            "p50(us)",
            "p99(us)",
            "p99.9(us)",
            "cpu/call",
            "client",
            "server"));
    if (ratios) {
      table.append(
          String.format(
              Locale.ROOT,
              RATIO_FORMAT,
              "Tether/gRPC",
              "Tether/Dubbo",
              "Tether/raw",
              "typed/untyped"));
    }
    table.append('\n');
    for (RunResult result : results) {
      table.append(row(result, results, ratios)).append('\n');
    }
    for (RunResult result : results) {
      if (!result.clean()) {
        table
            .append("! ")
            .append(result.scenario())
            .append(": ")
            .append(problemOf(result))
            .append('\n');
      }
    }
    return table.toString();
  }

  private static String row(RunResult result, List<RunResult> all, boolean ratios) {
    Scenario scenario = result.scenario();
    String line =
        String.format(
            Locale.ROOT,
            ROW_FORMAT,
            scenario.system().name() + (result.clean() ? "" : " !"),
            scenario.payloadBytes() + " B",
            scenario.concurrency(),
            String.format(Locale.ROOT, "%,.0f", result.callsPerSecond()),
            micros(result.p50Micros()),
            micros(result.p99Micros()),
            micros(result.p999Micros()),
            cpuMicros(result.totalCpuMicrosPerCall()),
            separateCpu(result, result.clientCpuMicrosPerCall()),
            separateCpu(result, result.serverCpuMicrosPerCall()));
    if (!ratios) {
      return line;
    }
    return line
        + String.format(
            Locale.ROOT,
            RATIO_FORMAT,
            ratioText(throughputRatio(result, all, grpcCounterpart(result))),
            ratioText(throughputRatio(result, all, dubboCounterpart(result))),
            ratioText(throughputRatio(result, all, rawNettyCounterpart())),
            ratioText(throughputRatio(result, all, untypedCounterpart(result))));
  }

  /**
   * The results as CSV with a header line; ratios and CPU figures are empty where they do not
   * apply.
   */
  static String csv(List<RunResult> results) {
    List<String> lines = new ArrayList<>();
    lines.add(
        "system,family,setting,placement,payload_bytes,concurrency,"
            + "calls_per_second,p50_us,p99_us,p999_us,max_us,"
            + "cpu_us_per_call,client_cpu_us_per_call,server_cpu_us_per_call,"
            + "measured_calls,failed_slots,"
            + "tether_over_grpc,tether_over_dubbo,tether_over_raw_netty,"
            + "typed_over_untyped,problem");
    for (RunResult result : results) {
      Scenario scenario = result.scenario();
      lines.add(
          String.join(
              ",",
              scenario.system().name(),
              scenario.system().family(),
              scenario.system().setting(),
              scenario.placement().name(),
              Integer.toString(scenario.payloadBytes()),
              Integer.toString(scenario.concurrency()),
              String.format(Locale.ROOT, "%.1f", result.callsPerSecond()),
              micros(result.p50Micros()),
              micros(result.p99Micros()),
              micros(result.p999Micros()),
              micros(result.maxMicros()),
              csvCpu(result.totalCpuMicrosPerCall()),
              Double.isNaN(result.serverCpuMicrosPerCall())
                  ? ""
                  : csvCpu(result.clientCpuMicrosPerCall()),
              csvCpu(result.serverCpuMicrosPerCall()),
              Long.toString(result.calls()),
              Integer.toString(result.failedSlots()),
              csvRatio(throughputRatio(result, results, grpcCounterpart(result))),
              csvRatio(throughputRatio(result, results, dubboCounterpart(result))),
              csvRatio(throughputRatio(result, results, rawNettyCounterpart())),
              csvRatio(throughputRatio(result, results, untypedCounterpart(result))),
              quoted(result.problem())));
    }
    return String.join("\n", lines) + "\n";
  }

  /**
   * What a Tether row is compared with among the gRPC rows: the same setting, protobuf for typed
   * calls.
   */
  private static SystemMatch grpcCounterpart(RunResult tetherResult) {
    String setting = tetherResult.scenario().system().setting();
    String wanted = setting.equals(TYPED_SETTING) ? "protobuf default" : setting;
    return spec -> spec.family().equals(SystemSpec.GRPC) && spec.setting().equals(wanted);
  }

  /** What a Tether row is compared with among the Dubbo rows: typed with typed, bytes otherwise. */
  private static SystemMatch dubboCounterpart(RunResult tetherResult) {
    String wanted =
        tetherResult.scenario().system().setting().equals(TYPED_SETTING) ? TYPED_SETTING : "bytes";
    return spec -> spec.family().equals(SystemSpec.DUBBO) && spec.setting().equals(wanted);
  }

  private static SystemMatch rawNettyCounterpart() {
    return spec -> spec.family().equals(SystemSpec.RAW_NETTY);
  }

  /**
   * A typed Tether row against untyped calls in the same (default) server mode; nothing for other
   * rows.
   */
  private static SystemMatch untypedCounterpart(RunResult tetherResult) {
    boolean typed = tetherResult.scenario().system().setting().equals(TYPED_SETTING);
    return spec ->
        typed && spec.family().equals(SystemSpec.TETHER) && spec.setting().equals("default");
  }

  /**
   * {@code result}'s calls/s over those of the run that {@code counterpart} picks with the same
   * payload, concurrency and placement; empty unless {@code result} is a Tether run and that run
   * exists.
   */
  static Optional<Double> throughputRatio(
      RunResult result, List<RunResult> all, SystemMatch counterpart) {
    Scenario scenario = result.scenario();
    if (!isTetherServer(scenario.system())) {
      return Optional.empty();
    }
    return all.stream()
        .filter(other -> counterpart.matches(other.scenario().system()))
        .filter(other -> other.scenario().payloadBytes() == scenario.payloadBytes())
        .filter(other -> other.scenario().concurrency() == scenario.concurrency())
        .filter(other -> other.scenario().placement() == scenario.placement())
        .filter(other -> other.callsPerSecond() > 0)
        .findFirst()
        .map(other -> result.callsPerSecond() / other.callsPerSecond());
  }

  private static boolean hasTetherRows(List<RunResult> results) {
    return results.stream().anyMatch(result -> isTetherServer(result.scenario().system()));
  }

  /**
   * A Tether server, whether it speaks Tether's protocol or gRPC (to gRPC-java's client), or
   * Tether's gRPC channel (to either server).
   */
  private static boolean isTetherServer(SystemSpec spec) {
    return spec.family().equals(SystemSpec.TETHER)
        || spec.family().equals(SystemSpec.TETHER_GRPC)
        || spec.family().equals(SystemSpec.TETHER_CHANNEL_TO_GRPC)
        || spec.family().equals(SystemSpec.TETHER_CHANNEL_TO_TETHER_GRPC);
  }

  private static String ratioText(Optional<Double> ratio) {
    return ratio.map(value -> ratio(value) + "x").orElse("-");
  }

  private static String csvRatio(Optional<Double> ratio) {
    return ratio.map(ResultTable::ratio).orElse("");
  }

  private static String ratio(double value) {
    return String.format(Locale.ROOT, "%.2f", value);
  }

  private static String micros(double value) {
    return String.format(Locale.ROOT, "%.1f", value);
  }

  /** Client and server CPU apart, when the server ran in a process of its own; "-" otherwise. */
  private static String separateCpu(RunResult result, double micros) {
    return Double.isNaN(result.serverCpuMicrosPerCall()) ? "-" : cpuMicros(micros);
  }

  private static String cpuMicros(double micros) {
    return Double.isNaN(micros) ? "-" : String.format(Locale.ROOT, "%.2f", micros);
  }

  private static String csvCpu(double micros) {
    return Double.isNaN(micros) ? "" : String.format(Locale.ROOT, "%.3f", micros);
  }

  private static String problemOf(RunResult result) {
    String failed =
        result.failedSlots() == 0
            ? ""
            : result.failedSlots() + " of " + result.scenario().concurrency() + " slots failed; ";
    return failed + result.problem();
  }

  private static String quoted(String text) {
    return text.isEmpty() ? "" : '"' + text.replace("\"", "\"\"") + '"';
  }

  /** Picks the system a result is compared with. */
  @FunctionalInterface
  interface SystemMatch {
    boolean matches(SystemSpec spec);
  }
}
