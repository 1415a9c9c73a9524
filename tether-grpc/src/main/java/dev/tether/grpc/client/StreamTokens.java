package dev.tether.grpc.client;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The sinks of server streams whose openings are on their way through the runtime: the opening's
 * request carries only a token (the runtime carries bytes), and the link that opens the stream
 * finds the sink by it. A retried opening finds the same sink. Thread-safe.
 */
final class StreamTokens {
  private static final AtomicLong NEXT = new AtomicLong();
  private static final Map<Long, StreamSink> SINKS = new ConcurrentHashMap<>();

  private StreamTokens() {}

  /** Registers {@code sink} until {@link #forget}; returns its token (never 0). */
  static long register(StreamSink sink) {
    long token = NEXT.incrementAndGet();
    SINKS.put(token, sink);
    return token;
  }

  /** The sink of {@code token}, or null when its call ended. */
  static StreamSink find(long token) {
    return SINKS.get(token);
  }

  static void forget(long token) {
    SINKS.remove(token);
  }
}
