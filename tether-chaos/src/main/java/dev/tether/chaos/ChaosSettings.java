package dev.tether.chaos;

import java.time.Duration;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;

/**
 * What a chaos run does, from system properties: {@code chaos.seed} (replays a run; a fresh one is
 * drawn and printed otherwise), {@code chaos.duration} ({@code 40s}, {@code 180s}, {@code 30m}),
 * {@code chaos.rate} (calls a second, all workers together), {@code chaos.workers}, {@code
 * chaos.faultDensity} (how many times as often faults begin as in the 3-minute run; see {@link
 * FaultPlan#generate(java.util.Random, Duration, int, int, double)}), {@code chaos.nodes}, {@code
 * chaos.nodeReconnect} (the client's {@code tether.cluster.reconnect.policy}, {@code standard}
 * unless set; see {@link ChaosRun#NODE_RECONNECT_POLICY} for why), {@code chaos.streams} (streams
 * open at once beside the calls; 6, 0 for none). A property that is absent or blank takes the
 * default: the short, dense run of the default build.
 */
public record ChaosSettings(
    long seed,
    Duration duration,
    double ratePerSecond,
    int workers,
    int nodes,
    Duration callTimeout,
    Duration attemptTimeout,
    int maxDown,
    String nodeReconnectPolicy,
    double faultDensity,
    int streams) {

  /**
   * The default build's run: 40 s at 500 calls/s from 16 workers, faults beginning 3 times as
   * often.
   */
  static final String DEFAULT_DURATION = "40s";

  private static final String DEFAULT_RATE = "500";
  private static final String DEFAULT_WORKERS = "16";
  private static final String DEFAULT_FAULT_DENSITY = "3";

  /**
   * More than the nodes: the round-robin proxy puts consecutive streams on consecutive nodes, so
   * every running node carries one when a reset or a freeze strikes it.
   */
  private static final String DEFAULT_STREAMS = "6";

  public ChaosSettings {
    if (duration.toSeconds() < 4
        || ratePerSecond <= 0
        || workers < 1
        || nodes < 3
        || maxDown >= nodes
        || !(faultDensity >= 1)
        || streams < 0) {
      throw new IllegalArgumentException(
          "chaos settings out of range: "
              + duration
              + ", rate "
              + ratePerSecond
              + ", "
              + workers
              + " workers, "
              + nodes
              + " nodes, "
              + maxDown
              + " down at most, fault density "
              + faultDensity
              + ", "
              + streams
              + " streams");
    }
  }

  /** The settings {@code properties} give, with the defaults of the short, dense run. */
  public static ChaosSettings from(Properties properties) {
    String seed = property(properties, "chaos.seed", "");
    return new ChaosSettings(
        seed.isEmpty() ? ThreadLocalRandom.current().nextLong() : Long.parseLong(seed),
        parseDuration(property(properties, "chaos.duration", DEFAULT_DURATION)),
        Double.parseDouble(property(properties, "chaos.rate", DEFAULT_RATE)),
        Integer.parseInt(property(properties, "chaos.workers", DEFAULT_WORKERS)),
        Integer.parseInt(property(properties, "chaos.nodes", "5")),
        Duration.ofSeconds(8),
        Duration.ofSeconds(1),
        2,
        property(properties, "chaos.nodeReconnect", ChaosRun.NODE_RECONNECT_POLICY),
        Double.parseDouble(property(properties, "chaos.faultDensity", DEFAULT_FAULT_DENSITY)),
        Integer.parseInt(property(properties, "chaos.streams", DEFAULT_STREAMS)));
  }

  /**
   * Whether this run is at least as long as the default one, which always draws every kind of
   * fault.
   */
  public boolean drawsEveryFaultKind() {
    return duration.compareTo(parseDuration(DEFAULT_DURATION)) >= 0;
  }

  // Maven hands a profile's unset property over as an empty string: that means "the default" too.
  private static String property(Properties properties, String key, String fallback) {
    String value = properties.getProperty(key);
    return value == null || value.isBlank() ? fallback : value.trim();
  }

  /** {@code 180s}, {@code 30m}, {@code 1h}, {@code 500ms}, or a plain number of seconds. */
  static Duration parseDuration(String text) {
    String s = text.trim().toLowerCase(Locale.ROOT);
    int unit = 0;
    while (unit < s.length() && (Character.isDigit(s.charAt(unit)) || s.charAt(unit) == '.')) {
      unit++;
    }
    if (unit == 0) {
      throw new IllegalArgumentException("not a duration: " + text);
    }
    double n = Double.parseDouble(s.substring(0, unit));
    double seconds =
        switch (s.substring(unit).trim()) {
          case "ms" -> n / 1000;
          case "", "s" -> n;
          case "m", "min" -> n * 60;
          case "h" -> n * 3600;
          default -> throw new IllegalArgumentException("unknown unit in duration " + text);
        };
    return Duration.ofMillis(Math.round(seconds * 1000));
  }
}
