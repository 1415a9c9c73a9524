package dev.tether.cli.demo;

import static dev.tether.cli.demo.SummaryPrinter.count;

import dev.tether.Tether;
import dev.tether.observe.NodeStatus;
import dev.tether.observe.TetherEvent;
import dev.tether.observe.TetherStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;

/**
 * The rows of the showcase's live table, read fresh each time from the cluster, the client's status
 * snapshot, its events and the callers' tallies: elapsed time and a progress bar, the phase, per
 * server its state, the client's view of it and the calls it answered, then retries, reroutes and
 * failures by kind. Called on the table's thread while the run changes phases.
 */
final class LiveView {
  private static final int BAR_WIDTH = 30;

  private final ShowcaseRun.Settings settings;
  private final LongSupplier nanoClock;

  /** Set once by {@link #watch}; null while the servers start and warm up. */
  private volatile Watched watched;

  /** The tallies of the phases that ended; the current one is {@link #current}. */
  private final List<ClientTally> ended = new CopyOnWriteArrayList<>();

  /** Null between phases. */
  private volatile ClientTally current;

  private volatile String phaseLabel = "starting";
  private volatile boolean finished;

  private record Watched(
      DemoCluster cluster, Tether tether, ClientEvents events, long startNanos) {}

  LiveView(ShowcaseRun.Settings settings, LongSupplier nanoClock) {
    this.settings = settings;
    this.nanoClock = nanoClock;
  }

  void watch(DemoCluster cluster, Tether tether, ClientEvents events) {
    watched = new Watched(cluster, tether, events, nanoClock.getAsLong());
  }

  void phaseStarted(int index, ShowcaseScenario.Phase phase, ClientTally tally) {
    current = tally;
    phaseLabel =
        String.format(
            Locale.ROOT,
            "phase %d/%d %s",
            index + 1,
            settings.scenario().phases().size(),
            phase.name());
  }

  void phaseEnded(ClientTally tally) {
    ended.add(tally);
    current = null;
  }

  void finished() {
    finished = true;
    phaseLabel = "all phases done";
  }

  List<String> rows() {
    Watched w = watched;
    if (w == null) {
      return List.of("  starting the servers and warming up ...");
    }
    List<ClientTally> tallies = new ArrayList<>(ended);
    ClientTally now = current;
    if (now != null) {
      tallies.add(now);
    }
    TetherStatus status = w.tether().status();
    List<String> rows = new ArrayList<>();
    rows.add(progress(w));
    rows.add(
        String.format(
            Locale.ROOT, "  %-10s %-20s %-18s %10s", "node", "server", "client sees", "calls ok"));
    for (DemoCluster.Node node : w.cluster().nodes()) {
      long answered =
          tallies.stream().mapToLong(t -> t.answeredBy().getOrDefault(node.name(), 0L)).sum();
      rows.add(
          String.format(
              Locale.ROOT,
              "  %-10s %-20s %-18s %10s",
              node.name(),
              node.describeState(),
              health(status, node.clientEndpoint()),
              count(answered)));
    }
    rows.add(
        String.format(
            Locale.ROOT,
            "  retries %s   reroutes %s",
            count(status.retries()),
            count(w.events().total(TetherEvent.Kind.REROUTE))));
    // One line per kind: a terminal wraps a long line, and the redraw counts lines, not rows.
    Map<String, Long> failures = failures(tallies);
    if (failures.isEmpty()) {
      rows.add("  failures   none");
    }
    failures.forEach(
        (kind, n) ->
            rows.add(String.format(Locale.ROOT, "  failures   %-46s %10s", kind, count(n))));
    return rows;
  }

  private String progress(Watched w) {
    long totalNanos = settings.duration().toNanos();
    long elapsedNanos = nanoClock.getAsLong() - w.startNanos();
    double done = finished ? 1 : Math.min(1, Math.max(0, (double) elapsedNanos / totalNanos));
    int filled = (int) Math.round(done * BAR_WIDTH);
    return String.format(
        Locale.ROOT,
        "  %5.1f s of %.0f s [%s%s] %3.0f%%  %s",
        elapsedNanos / 1e9,
        totalNanos / 1e9,
        "#".repeat(filled),
        ".".repeat(BAR_WIDTH - filled),
        done * 100,
        phaseLabel);
  }

  /**
   * What the client knows of an endpoint: its node's health when a balancing proxy keeps one, else
   * the states of its connections (a per-request proxy keeps no nodes); "-" for nothing.
   */
  private static String health(TetherStatus status, String endpoint) {
    return status.nodes().stream()
        .filter(n -> n.endpoint().equals(endpoint))
        .map(NodeStatus::health)
        .findFirst()
        .orElseGet(
            () ->
                status.connections().stream()
                    .filter(c -> c.endpoint().equals(endpoint))
                    .map(c -> c.state().name())
                    .distinct()
                    .sorted()
                    .collect(Collectors.joining(",")))
        .transform(seen -> seen.isEmpty() ? "-" : seen);
  }

  private static Map<String, Long> failures(List<ClientTally> tallies) {
    Map<String, Long> kinds = new TreeMap<>();
    tallies.forEach(t -> t.failuresByKind().forEach((kind, n) -> kinds.merge(kind, n, Long::sum)));
    return kinds;
  }
}
