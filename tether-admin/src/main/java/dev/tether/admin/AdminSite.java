package dev.tether.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;

/**
 * Everything the routes serve, apart from HTTP: the page, the snapshots as JSON, the event ring,
 * the open streams and the optional Prometheus text. {@link #tick()} runs on the worker every
 * {@link TetherAdmin#SAMPLE_INTERVAL} and pushes one update, with the events that arrived since the
 * previous one, to every open page.
 */
final class AdminSite {
  private final ObjectMapper json;
  private final StatusBoard board;
  private final EventRing ring;
  private final SseHub streams = new SseHub();
  private final ScheduledExecutorService worker;
  private final String accessToken;

  /** Null while a metrics jar is missing; then {@link #missingMetricsJars} names them. */
  private final Supplier<String> metrics;

  private final String missingMetricsJars;
  private final byte[] page;

  /** A status snapshot is cheap enough to take every 100 ms; /status.json is never staler. */
  static final long SNAPSHOT_REUSE_NANOS = 100_000_000L;

  /**
   * The latest /status.json body; written by the worker, read by the event loop; null before the
   * first.
   */
  private volatile Cached cachedStatus;

  /** Worker-only: the newest event sequence number already pushed. */
  private long lastPushedSeq = -1;

  AdminSite(
      ObjectMapper json,
      StatusBoard board,
      EventRing ring,
      ScheduledExecutorService worker,
      String accessToken,
      Supplier<String> metrics,
      String missingMetricsJars) {
    this.json = json;
    this.board = board;
    this.ring = ring;
    this.worker = worker;
    this.accessToken = accessToken;
    this.metrics = metrics;
    this.missingMetricsJars = missingMetricsJars;
    this.page = resource("status-page.html");
  }

  private static byte[] resource(String name) {
    try (InputStream in = AdminSite.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException(name + " is missing from the tether-admin jar");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  byte[] page() {
    return page;
  }

  String accessToken() {
    return accessToken;
  }

  ScheduledExecutorService worker() {
    return worker;
  }

  SseHub streams() {
    return streams;
  }

  EventRing ring() {
    return ring;
  }

  boolean hasMetrics() {
    return metrics != null;
  }

  /** Why {@code /metrics} is not served: the artifacts missing from the class path. */
  String missingMetricsJars() {
    return missingMetricsJars;
  }

  String metricsText() {
    return metrics.get();
  }

  /**
   * The snapshot as JSON, taken afresh at most once per {@link #SNAPSHOT_REUSE_NANOS}: a script
   * polling 100 times a second then costs the runtimes ten snapshots a second, not a hundred.
   * Worker-only, like every snapshot.
   */
  byte[] statusJson() {
    long now = System.nanoTime();
    Cached c = cachedStatus;
    if (c == null || now - c.takenNanos() >= SNAPSHOT_REUSE_NANOS) {
      c =
          new Cached(
              write(board.statusJson()).getBytes(java.nio.charset.StandardCharsets.UTF_8), now);
      cachedStatus = c;
    }
    return c.json();
  }

  /**
   * The cached body when it is fresh enough, else null: the event loop answers it without a hop,
   * and without encoding it again (the bytes are never written to, so every answer can wrap them).
   */
  byte[] freshStatusJson() {
    Cached c = cachedStatus;
    return c != null && System.nanoTime() - c.takenNanos() < SNAPSHOT_REUSE_NANOS ? c.json() : null;
  }

  private record Cached(byte[] json, long takenNanos) {}

  /** A page's first message: the status, the whole history and every kept event. */
  String welcomeJson() {
    ObjectNode welcome = board.statusJson();
    welcome.set("history", json.valueToTree(board.history()));
    welcome.set("events", json.valueToTree(ring.snapshot()));
    return write(welcome);
  }

  /** One sample: always taken, for the history; pushed only when a page is open. */
  void tick() {
    ObjectNode update = board.sample();
    if (streams.isEmpty()) {
      return;
    }
    ArrayNode fresh = update.putArray("events");
    for (EventRing.Entry e : ring.snapshot()) {
      if (e.seq() > lastPushedSeq) {
        fresh.add(json.valueToTree(e));
        lastPushedSeq = e.seq();
      }
    }
    streams.broadcast("update", write(update));
  }

  private String write(Object tree) {
    try {
      return json.writeValueAsString(tree);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a status tree that Jackson cannot write", e);
    }
  }

  void close() {
    streams.closeAll();
  }
}
