package dev.tether.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Lays results out as the text table printed at the end of a run and as CSV.
 *
 * <p>Once Tether rows are present, two ratio columns compare each Tether row's calls/s with the
 * matching run of the same payload and concurrency: against gRPC in the same setting ({@code
 * tether direct} against {@code grpc direct}, {@code tether default} against {@code grpc default})
 * and against raw Netty.
 */
final class ResultTable {

    private static final String ROW_FORMAT = "%-16s %8s %5s %11s %9s %9s %9s";
    private static final String RATIO_FORMAT = " %11s %10s";

    private ResultTable() {}

    /** The table, one line per result, followed by a line per result that had a problem. */
    static String render(List<RunResult> results) {
        boolean ratios = hasTetherRows(results);
        StringBuilder table = new StringBuilder();
        table.append(String.format(Locale.ROOT, ROW_FORMAT, "system", "payload", "conc", "calls/s", "p50(us)", "p99(us)", "p99.9(us)"));
        if (ratios) {
            table.append(String.format(Locale.ROOT, RATIO_FORMAT, "Tether/gRPC", "Tether/raw"));
        }
        table.append('\n');
        for (RunResult result : results) {
            table.append(row(result, results, ratios)).append('\n');
        }
        for (RunResult result : results) {
            if (!result.clean()) {
                table.append("! ").append(result.scenario()).append(": ").append(problemOf(result)).append('\n');
            }
        }
        return table.toString();
    }

    private static String row(RunResult result, List<RunResult> all, boolean ratios) {
        Scenario scenario = result.scenario();
        String line = String.format(Locale.ROOT, ROW_FORMAT,
                scenario.system().name() + (result.clean() ? "" : " !"),
                scenario.payloadBytes() + " B",
                scenario.concurrency(),
                String.format(Locale.ROOT, "%,.0f", result.callsPerSecond()),
                micros(result.p50Micros()),
                micros(result.p99Micros()),
                micros(result.p999Micros()));
        if (!ratios) {
            return line;
        }
        return line + String.format(Locale.ROOT, RATIO_FORMAT,
                ratioText(throughputRatio(result, all, grpcCounterpart(result))),
                ratioText(throughputRatio(result, all, rawNettyCounterpart())));
    }

    /** The results as CSV with a header line; ratios are empty where they do not apply. */
    static String csv(List<RunResult> results) {
        List<String> lines = new ArrayList<>();
        lines.add("system,family,setting,payload_bytes,concurrency,calls_per_second,p50_us,p99_us,p999_us,max_us,"
                + "measured_calls,failed_slots,tether_over_grpc,tether_over_raw_netty,problem");
        for (RunResult result : results) {
            Scenario scenario = result.scenario();
            lines.add(String.join(",",
                    scenario.system().name(),
                    scenario.system().family(),
                    scenario.system().setting(),
                    Integer.toString(scenario.payloadBytes()),
                    Integer.toString(scenario.concurrency()),
                    String.format(Locale.ROOT, "%.1f", result.callsPerSecond()),
                    micros(result.p50Micros()),
                    micros(result.p99Micros()),
                    micros(result.p999Micros()),
                    micros(result.maxMicros()),
                    Long.toString(result.calls()),
                    Integer.toString(result.failedSlots()),
                    throughputRatio(result, results, grpcCounterpart(result)).map(ResultTable::ratio).orElse(""),
                    throughputRatio(result, results, rawNettyCounterpart()).map(ResultTable::ratio).orElse(""),
                    quoted(result.problem())));
        }
        return String.join("\n", lines) + "\n";
    }

    /** What a Tether row is compared with among the gRPC rows: the same setting. */
    private static SystemMatch grpcCounterpart(RunResult tetherResult) {
        String setting = tetherResult.scenario().system().setting();
        return spec -> spec.family().equals(SystemSpec.GRPC) && spec.setting().equals(setting);
    }

    private static SystemMatch rawNettyCounterpart() {
        return spec -> spec.family().equals(SystemSpec.RAW_NETTY);
    }

    /**
     * {@code result}'s calls/s over those of the run that {@code counterpart} picks with the same
     * payload and concurrency; empty unless {@code result} is a Tether run and that run exists.
     */
    static Optional<Double> throughputRatio(RunResult result, List<RunResult> all, SystemMatch counterpart) {
        Scenario scenario = result.scenario();
        if (!scenario.system().family().equals(SystemSpec.TETHER)) {
            return Optional.empty();
        }
        return all.stream()
                .filter(other -> counterpart.matches(other.scenario().system()))
                .filter(other -> other.scenario().payloadBytes() == scenario.payloadBytes())
                .filter(other -> other.scenario().concurrency() == scenario.concurrency())
                .filter(other -> other.callsPerSecond() > 0)
                .findFirst()
                .map(other -> result.callsPerSecond() / other.callsPerSecond());
    }

    private static boolean hasTetherRows(List<RunResult> results) {
        return results.stream().anyMatch(result -> result.scenario().system().family().equals(SystemSpec.TETHER));
    }

    private static String ratioText(Optional<Double> ratio) {
        return ratio.map(value -> ratio(value) + "x").orElse("-");
    }

    private static String ratio(double value) {
        return String.format(Locale.ROOT, "%.2f", value);
    }

    private static String micros(double value) {
        return String.format(Locale.ROOT, "%.1f", value);
    }

    private static String problemOf(RunResult result) {
        String failed = result.failedSlots() == 0 ? "" : result.failedSlots() + " of " + result.scenario().concurrency() + " slots failed; ";
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
