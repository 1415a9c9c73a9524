package dev.tether;

import dev.tether.internal.DurationParser;
import dev.tether.internal.TetherProperties;
import dev.tether.protocol.BodyCompression;
import dev.tether.server.StreamRegistry;
import dev.tether.stream.StreamSettings;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;

/**
 * The {@code tether.*} keys a server reads, parsed once when it is built: a bad value fails {@code
 * build()}, and a property changed on the builder later does not reach the built server.
 *
 * @param readerIdle {@code tether.server.readerIdle}: close a connection silent this long (20 s; 0
 *     = never)
 * @param handshakeTimeout {@code tether.server.handshakeTimeout}: close a connection that has not
 *     completed its TLS handshake and sent HELLO this long after it opened (10 s; 0 = never)
 * @param maxConnections {@code tether.server.maxConnections}: connections served at once
 *     (unlimited)
 * @param compression {@code tether.compression.enabled} (true: announce zstd, decompress requests,
 *     compress the replies of compressed requests) and {@code tether.compression.threshold} (1024
 *     bytes)
 * @param forceNio {@code tether.transport.nio}: NIO even where native epoll is present
 * @param executionMode {@code tether.server.executionMode}: where service code runs (EXECUTOR);
 *     {@link TetherServer.Builder#executionMode} sets the same key
 * @param maxConnectionAge {@code tether.server.maxConnectionAge}: after this long (±10%) a
 *     connection is told GOAWAY(MAX_AGE) and its client moves to a new one (0 = never, the default)
 * @param maxConnectionAgeGrace {@code tether.server.maxConnectionAgeGrace}: how long an aged
 *     connection is still served before it is closed (0 = until its client closes it, the default)
 * @param streams {@code tether.stream.window}, {@code .resumeBuffer}, {@code .resumeWindow}
 * @param maxStreamsPerConnection {@code tether.server.maxStreamsPerConnection}: streams one
 *     connection may have open; one more opening or RESUME is refused (100)
 * @param maxDetachedStreams {@code tether.server.maxDetachedStreams}: streams the server keeps for
 *     a resume at once, across its connections; a stream whose connection closes beyond them is
 *     lost at once (1000)
 */
record ServerProperties(
    Duration readerIdle,
    Duration handshakeTimeout,
    int maxConnections,
    BodyCompression.Settings compression,
    boolean forceNio,
    ExecutionMode executionMode,
    Duration maxConnectionAge,
    Duration maxConnectionAgeGrace,
    StreamSettings streams,
    int maxStreamsPerConnection,
    int maxDetachedStreams) {
  static final String EXECUTION_MODE = "tether.server.executionMode";
  static final String MAX_STREAMS_PER_CONNECTION = "tether.server.maxStreamsPerConnection";
  static final String MAX_DETACHED_STREAMS = "tether.server.maxDetachedStreams";

  static ServerProperties parse(TetherProperties properties) {
    return new ServerProperties(
        duration(properties, "tether.server.readerIdle", "20s"),
        duration(properties, "tether.server.handshakeTimeout", "10s"),
        atLeastOne(
            "tether.server.maxConnections",
            properties.get("tether.server.maxConnections", String.valueOf(Integer.MAX_VALUE))),
        BodyCompression.Settings.parse(
            properties.get("tether.compression.enabled", null),
            properties.get("tether.compression.threshold", null)),
        Boolean.parseBoolean(properties.get("tether.transport.nio", "false")),
        executionMode(properties.get(EXECUTION_MODE, ExecutionMode.EXECUTOR.name())),
        duration(properties, "tether.server.maxConnectionAge", "0"),
        duration(properties, "tether.server.maxConnectionAgeGrace", "0"),
        StreamSettings.parse(properties::get),
        atLeastOne(
            MAX_STREAMS_PER_CONNECTION,
            properties.get(
                MAX_STREAMS_PER_CONNECTION,
                String.valueOf(StreamRegistry.DEFAULT_MAX_STREAMS_PER_CONNECTION))),
        atLeastOne(
            MAX_DETACHED_STREAMS,
            properties.get(
                MAX_DETACHED_STREAMS,
                String.valueOf(StreamRegistry.DEFAULT_MAX_DETACHED_STREAMS))));
  }

  /** The mode's name, in any case, with '-' for '_' as Spring's relaxed binding may write it. */
  private static ExecutionMode executionMode(String value) {
    String name = value.trim().toUpperCase(Locale.ROOT).replace('-', '_');
    for (ExecutionMode mode : ExecutionMode.values()) {
      if (mode.name().equals(name)) {
        return mode;
      }
    }
    throw new IllegalArgumentException(
        EXECUTION_MODE
            + " must be one of "
            + Arrays.toString(ExecutionMode.values())
            + ", got \""
            + value
            + "\"");
  }

  private static Duration duration(TetherProperties properties, String key, String fallback) {
    return DurationParser.parse(key, properties.get(key, fallback));
  }

  private static int atLeastOne(String key, String value) {
    int n;
    try {
      n = Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + " must be a whole number, got \"" + value + "\"");
    }
    if (n < 1) {
      throw new IllegalArgumentException(key + " must be at least 1, got " + n);
    }
    return n;
  }
}
