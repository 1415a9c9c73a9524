package dev.tether.client;

import dev.tether.internal.DurationParser;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * The client runtime's settings, read once from {@code tether.*} properties (DESIGN.md section 3).
 * Durations accept {@code 3000}, {@code 200ms}, {@code 3s}, {@code 15min}.
 *
 * @param overrideTimeout replaces every endpoint's {@code -t} when set; null otherwise
 * @param overrideConnectTimeout the connect timeout for every endpoint when set; null otherwise
 * @param overrideSecure keep only secure endpoints
 * @param retryIntervals waits before each extra round of connection attempts; {@code [0]} means
 *     one more round right away
 * @param traceRetry 0 silent, 1 failures, 2 every attempt with its reason
 * @param traceConnection log connection opening and closing
 * @param eventLoopThreads 0 for Netty's default
 * @param forceNio use NIO even where epoll is available
 */
public record ClientConfig(
    Duration overrideTimeout,
    Duration overrideConnectTimeout,
    boolean overrideSecure,
    List<Duration> retryIntervals,
    int traceRetry,
    boolean traceConnection,
    int eventLoopThreads,
    boolean forceNio) {

  public ClientConfig {
    retryIntervals = List.copyOf(retryIntervals);
  }

  public static ClientConfig from(Properties p) {
    return new ClientConfig(
        duration(p, "tether.override.timeout"),
        duration(p, "tether.override.connectTimeout"),
        Boolean.parseBoolean(p.getProperty("tether.override.secure", "false")),
        intervals(p.getProperty("tether.retry.intervals", "0")),
        Integer.parseInt(p.getProperty("tether.trace.retry", "0").trim()),
        Boolean.parseBoolean(p.getProperty("tether.trace.connection", "false")),
        Integer.parseInt(p.getProperty("tether.client.threads", "0").trim()),
        Boolean.parseBoolean(p.getProperty("tether.transport.nio", "false")));
  }

  private static Duration duration(Properties p, String key) {
    String v = p.getProperty(key);
    return v == null || v.isBlank() ? null : DurationParser.parse(key, v);
  }

  /** Ice's convention: {@code -1} alone means a single round, no retry. */
  private static List<Duration> intervals(String text) {
    List<Duration> out = new ArrayList<>();
    if (text.trim().equals("-1")) {
      return out;
    }
    for (String part : text.trim().split("\\s+")) {
      if (!part.isEmpty()) {
        out.add(DurationParser.parse("tether.retry.intervals", part));
      }
    }
    return out;
  }
}
