package dev.tether.chaos;

import java.time.Duration;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;

/**
 * What a chaos run does, from system properties: {@code chaos.seed} (replays a run; a fresh one
 * is drawn and printed otherwise), {@code chaos.duration} ({@code 180s}, {@code 30m}),
 * {@code chaos.rate} (calls a second, all workers together), {@code chaos.workers},
 * {@code chaos.nodes}, {@code chaos.nodeReconnect} (the client's {@code tether.cluster.reconnect.policy},
 * {@code standard} unless set; see {@link ChaosRun#NODE_RECONNECT_POLICY} for why).
 */
public record ChaosSettings(long seed, Duration duration, double ratePerSecond, int workers, int nodes,
    Duration callTimeout, Duration attemptTimeout, int maxDown, String nodeReconnectPolicy) {

  public ChaosSettings {
    if (duration.toSeconds() < 10 || ratePerSecond <= 0 || workers < 1 || nodes < 3 || maxDown >= nodes) {
      throw new IllegalArgumentException("chaos settings out of range: " + duration + ", rate " + ratePerSecond
          + ", " + workers + " workers, " + nodes + " nodes, " + maxDown + " down at most");
    }
  }

  /** The settings {@code properties} give, with the defaults of the CI-length run. */
  public static ChaosSettings from(Properties properties) {
    String seed = properties.getProperty("chaos.seed");
    return new ChaosSettings(
        seed == null || seed.isBlank() ? ThreadLocalRandom.current().nextLong() : Long.parseLong(seed.trim()),
        parseDuration(properties.getProperty("chaos.duration", "180s")),
        Double.parseDouble(properties.getProperty("chaos.rate", "200")),
        Integer.parseInt(properties.getProperty("chaos.workers", "8")),
        Integer.parseInt(properties.getProperty("chaos.nodes", "5")),
        Duration.ofSeconds(8),
        Duration.ofSeconds(1),
        2,
        properties.getProperty("chaos.nodeReconnect", ChaosRun.NODE_RECONNECT_POLICY));
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
    double seconds = switch (s.substring(unit).trim()) {
      case "ms" -> n / 1000;
      case "", "s" -> n;
      case "m", "min" -> n * 60;
      case "h" -> n * 3600;
      default -> throw new IllegalArgumentException("unknown unit in duration " + text);
    };
    return Duration.ofMillis(Math.round(seconds * 1000));
  }
}
