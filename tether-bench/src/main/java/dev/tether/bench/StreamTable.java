package dev.tether.bench;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The stream results of one placement as a text table: items/s, the items' age at the subscriber
 * (p50, p99: for an echo the round trip), CPU per item, and on Tether rows its items/s over each
 * gRPC setting's for the same shape and stream count.
 */
final class StreamTable {
  private static final String FORMAT = "%-25s %-14s %7s %12s %9s %9s %9s %7s %7s %11s %12s%n";

  private StreamTable() {}

  static String render(List<StreamRunner.Result> results) {
    StringBuilder table =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                FORMAT,
                "system",
                "shape",
                "streams",
                "items/s",
                "p50(us)",
                "p99(us)",
                "cpu/item",
                "client",
                "server",
                "x grpc dir",
                "x grpc dflt"));
    for (StreamRunner.Result r : results) {
      StreamScenario s = r.scenario();
      boolean twoProcess = s.placement() == Placement.TWO_PROCESS;
      table.append(
          String.format(
              Locale.ROOT,
              FORMAT,
              s.system().name() + (r.clean() ? "" : " !"),
              s.shape().label,
              s.streams(),
              String.format(Locale.ROOT, "%,.0f", r.itemsPerSecond()),
              number(r.percentileMicros(50), 0),
              number(r.percentileMicros(99), 0),
              number(r.totalCpuMicrosPerItem(), 2),
              twoProcess ? number(r.cpuMicrosPerItem(false), 2) : "",
              twoProcess ? number(r.cpuMicrosPerItem(true), 2) : "",
              s.system().comparedWithGrpc() ? ratio(r, results, "grpc direct") : "",
              s.system().comparedWithGrpc() ? ratio(r, results, "grpc default") : ""));
    }
    results.stream()
        .filter(r -> !r.clean())
        .forEach(
            r ->
                table
                    .append("! ")
                    .append(r.scenario())
                    .append(": ")
                    .append(r.problem())
                    .append('\n'));
    return table.toString();
  }

  private static String ratio(
      StreamRunner.Result tether, List<StreamRunner.Result> all, String grpcName) {
    Optional<StreamRunner.Result> grpc =
        all.stream()
            .filter(
                r ->
                    r.scenario().system().name().equals(grpcName)
                        && r.scenario().shape() == tether.scenario().shape()
                        && r.scenario().streams() == tether.scenario().streams()
                        && r.itemsPerSecond() > 0)
            .findFirst();
    return grpc.map(
            g -> String.format(Locale.ROOT, "%.2fx", tether.itemsPerSecond() / g.itemsPerSecond()))
        .orElse("");
  }

  private static String number(double value, int decimals) {
    return Double.isNaN(value) ? "n/a" : String.format(Locale.ROOT, "%." + decimals + "f", value);
  }
}
