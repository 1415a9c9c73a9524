package dev.tether.client;

import dev.tether.internal.Backoff;
import dev.tether.internal.DurationParser;
import dev.tether.protocol.BodyCompression;
import dev.tether.protocol.FrameHeader;
import dev.tether.protocol.ProtocolVersion;
import dev.tether.stream.StreamSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * The client runtime's settings, read once from {@code tether.*} properties (docs/configuration.md
 * lists them). Durations accept {@code 3000}, {@code 200ms}, {@code 3s}, {@code 15min}; a zero
 * duration turns its rule off.
 *
 * @param overrideTimeout replaces every endpoint's {@code -t} when set; null otherwise
 * @param overrideConnectTimeout the connect timeout for every endpoint when set; null otherwise
 * @param overrideSecure keep only secure endpoints
 * @param retryIntervals waits before each extra round of attempts; {@code [0]} (the default) means
 *     one more round right away, {@code -1} none
 * @param traceRetry 0 silent, 1 failures, 2 every attempt with its reason
 * @param traceConnection log connection state changes
 * @param heartbeatReaderIdle ping a connection that read nothing for this long (3 s)
 * @param heartbeatIdleTimeout a connection that read nothing for this long is dead (10 s)
 * @param reconnect backoff of the background reconnection of broken connections
 * @param nodeReconnect backoff of the node supervisor reconnecting dead cluster nodes ({@code
 *     tether.cluster.reconnect.*}; {@code standard} by default, so a node whose connection was only
 *     reset is back within a fraction of a second; {@code exponential} is RethinkDB's 30 s doubling
 *     to 15 min)
 * @param retryBudgetRatio retries allowed as a fraction of recent calls (0.2)
 * @param retryBudgetFloorPerSecond retries allowed per second on top of the ratio (10)
 * @param closeGrace how long {@code Tether.close()} waits for pending calls (10 s)
 * @param eventLoopThreads 0 for Netty's default
 * @param forceNio use NIO even where epoll is available
 * @param ejection failure accrual of cluster nodes ({@code tether.cluster.ejection.failures} 5,
 *     {@code .successRate} 0.5 over at least {@code .minCalls} 20 in ten seconds, {@code .base} 10
 *     s, {@code .max} 5 min, {@code .maxShare} 0.5, {@code .outlierGap} 0.5, {@code .outlierCalls}
 *     40)
 * @param connections when a key gets extra connections and when idle ones close
 * @param compression {@code tether.compression.enabled} (true) and {@code .threshold} (1024 bytes):
 *     whether connections announce zstd, and the body size above which {@code -z} calls compress
 * @param streams {@code tether.stream.window} (64 items), {@code .resumeBuffer} (1 MiB) and {@code
 *     .resumeWindow} (30 s)
 * @param maxFrameSize {@code tether.client.maxFrameSize}: the largest frame a connection reads and
 *     announces in HELLO (16 MiB); a server's larger stream item fails its stream, unsent
 */
public record ClientConfig(
    Duration overrideTimeout,
    Duration overrideConnectTimeout,
    boolean overrideSecure,
    List<Duration> retryIntervals,
    int traceRetry,
    boolean traceConnection,
    Duration heartbeatReaderIdle,
    Duration heartbeatIdleTimeout,
    Backoff reconnect,
    Backoff nodeReconnect,
    double retryBudgetRatio,
    double retryBudgetFloorPerSecond,
    Duration closeGrace,
    int eventLoopThreads,
    boolean forceNio,
    EjectionPolicy ejection,
    ConnectionUse connections,
    BodyCompression.Settings compression,
    StreamSettings streams,
    int maxFrameSize) {

  public ClientConfig {
    retryIntervals = List.copyOf(retryIntervals);
  }

  public static ClientConfig from(Properties p) {
    return new ClientConfig(
        duration(p, "tether.override.timeout", null),
        duration(p, "tether.override.connectTimeout", null),
        bool(p, "tether.override.secure", false),
        intervals(p.getProperty("tether.retry.intervals", "0")),
        integer(p, "tether.trace.retry", 0),
        bool(p, "tether.trace.connection", false),
        duration(p, "tether.heartbeat.readerIdle", Duration.ofSeconds(3)),
        duration(p, "tether.heartbeat.idleTimeout", Duration.ofSeconds(10)),
        reconnect(p, "tether.reconnect", "standard"),
        reconnect(p, "tether.cluster.reconnect", "standard"),
        Double.parseDouble(p.getProperty("tether.retry.budget.ratio", "0.2").trim()),
        Double.parseDouble(p.getProperty("tether.retry.budget.floorPerSecond", "10").trim()),
        duration(p, "tether.close.grace", Duration.ofSeconds(10)),
        integer(p, "tether.client.threads", 0),
        bool(p, "tether.transport.nio", false),
        new EjectionPolicy(
            integer(p, "tether.cluster.ejection.failures", 5),
            Double.parseDouble(p.getProperty("tether.cluster.ejection.successRate", "0.5").trim()),
            integer(p, "tether.cluster.ejection.minCalls", 20),
            duration(p, "tether.cluster.ejection.base", Duration.ofSeconds(10)),
            duration(p, "tether.cluster.ejection.max", Duration.ofMinutes(5)),
            Double.parseDouble(p.getProperty("tether.cluster.ejection.maxShare", "0.5").trim()),
            Double.parseDouble(p.getProperty("tether.cluster.ejection.outlierGap", "0.5").trim()),
            integer(
                p, "tether.cluster.ejection.outlierCalls", EjectionPolicy.DEFAULT_OUTLIER_CALLS)),
        new ConnectionUse(
            nonNegative("tether.connection.maxExtra", integer(p, "tether.connection.maxExtra", 4)),
            duration(p, "tether.connection.extraIdleClose", Duration.ofSeconds(10)),
            duration(p, "tether.connection.idleClose", Duration.ZERO),
            duration(p, "tether.connection.handshakeTimeout", Duration.ofSeconds(10)),
            duration(p, "tether.connection.maxAge", Duration.ZERO)),
        BodyCompression.Settings.parse(
            p.getProperty("tether.compression.enabled"),
            p.getProperty("tether.compression.threshold")),
        StreamSettings.parse(p::getProperty),
        frameSize(
            integer(p, "tether.client.maxFrameSize", ProtocolVersion.DEFAULT_MAX_FRAME_SIZE)));
  }

  /** What HELLO may announce (docs/protocol.md, section 3.1). */
  private static int frameSize(int bytes) {
    if (bytes < FrameHeader.HEADER_LENGTH) {
      throw new IllegalArgumentException(
          "tether.client.maxFrameSize must be at least "
              + FrameHeader.HEADER_LENGTH
              + " bytes, got "
              + bytes);
    }
    return bytes;
  }

  /**
   * How many connections a key may have and how long unused ones live (extra connections under
   * load; Ice's ACM).
   *
   * @param maxExtra connections opened beside a key's own when its calls in flight reach the
   *     server's limit or its unsent bytes pass the high-water mark ({@code
   *     tether.connection.maxExtra}, 4)
   * @param extraIdleClose an extra connection with no call for this long closes ({@code
   *     tether.connection.extraIdleClose}, 10 s)
   * @param idleClose a connection with no call for this long closes gracefully and the next call
   *     reopens it ({@code tether.connection.idleClose}; 0, the default, keeps it open)
   * @param handshakeTimeout a connection whose server has not answered HELLO this long after the
   *     transport connected fails its connect, when its endpoint sets no connect timeout ({@code
   *     tether.connection.handshakeTimeout}, 10 s; 0 waits forever)
   * @param maxAge after this long (±10%) a connection is replaced: the new one opens at once and
   *     takes new calls once ready, the old one drains ({@code tether.connection.maxAge}; 0, the
   *     default, never)
   */
  public record ConnectionUse(
      int maxExtra,
      Duration extraIdleClose,
      Duration idleClose,
      Duration handshakeTimeout,
      Duration maxAge) {
    public ConnectionUse {
      if (maxAge.isNegative()) {
        throw new IllegalArgumentException(
            "tether.connection.maxAge must not be negative, got " + maxAge);
      }
    }
  }

  private static int nonNegative(String key, int value) {
    if (value < 0) {
      throw new IllegalArgumentException(key + " must not be negative, got " + value);
    }
    return value;
  }

  /**
   * {@code tether.reconnect.policy}: {@code standard} (100 ms doubling to 30 s, ±20%), {@code
   * fixed} (every {@code tether.reconnect.initial}, 5 s by default, as SCF) or {@code exponential}
   * (30 s doubling to 15 min, as RethinkDB); the {@code initial}, {@code multiplier}, {@code max}
   * and {@code jitter} keys adjust the chosen preset.
   */
  private static Backoff reconnect(Properties p, String prefix, String defaultPolicy) {
    String policy =
        p.getProperty(prefix + ".policy", defaultPolicy).trim().toLowerCase(Locale.ROOT);
    Backoff preset =
        switch (policy) {
          case "standard" -> Backoff.standard();
          case "fixed" -> Backoff.fixed(duration(p, prefix + ".initial", Duration.ofSeconds(5)));
          case "exponential" -> Backoff.exponential();
          default ->
              throw new IllegalArgumentException(
                  prefix + ".policy: \"" + policy + "\" is not standard, fixed or exponential");
        };
    return new Backoff(
        duration(p, prefix + ".initial", preset.initial()),
        Double.parseDouble(
            p.getProperty(prefix + ".multiplier", String.valueOf(preset.multiplier())).trim()),
        duration(p, prefix + ".max", preset.max()),
        Double.parseDouble(
            p.getProperty(prefix + ".jitter", String.valueOf(preset.jitter())).trim()));
  }

  private static Duration duration(Properties p, String key, Duration fallback) {
    String v = p.getProperty(key);
    return v == null || v.isBlank() ? fallback : DurationParser.parse(key, v);
  }

  private static boolean bool(Properties p, String key, boolean fallback) {
    return Boolean.parseBoolean(p.getProperty(key, String.valueOf(fallback)).trim());
  }

  private static int integer(Properties p, String key, int fallback) {
    return Integer.parseInt(p.getProperty(key, String.valueOf(fallback)).trim());
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

  /**
   * The liveness rules for a connection opened with transport timeout {@code timeout} to a server
   * that announced {@code serverHeartbeatMillis} in WELCOME (its reader idle; 0 = it closes no
   * silent client). The client's own heartbeat checks the server; on top, the client writes
   * something (a PING when it has nothing else) at least every half of the server's interval, so
   * that a server whose reader idle is shorter than the client's heartbeat never closes a healthy
   * idle connection; half leaves the ping a whole half-interval to arrive.
   */
  LivenessMonitor.Settings livenessSettings(Duration timeout, int serverHeartbeatMillis) {
    return new LivenessMonitor.Settings(
        heartbeatReaderIdle().toNanos(),
        heartbeatIdleTimeout().toNanos(),
        timeout == null ? 0 : timeout.toNanos(),
        serverHeartbeatMillis <= 0 ? 0 : TimeUnit.MILLISECONDS.toNanos(serverHeartbeatMillis) / 2);
  }
}
