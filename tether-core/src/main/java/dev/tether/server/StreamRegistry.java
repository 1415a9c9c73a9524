package dev.tether.server;

import dev.tether.RawStreamService;
import dev.tether.internal.EventBus;
import dev.tether.observe.TetherEvent;
import dev.tether.protocol.StreamResume;
import dev.tether.spi.Scheduler;
import dev.tether.spi.Ticker;
import dev.tether.stream.StreamItemCounts;
import dev.tether.stream.StreamSettings;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The server's streams across its connections: the stream services by name, the open streams by
 * resume token (a stream outlives the connection that carried it for the resume window), where
 * stream work runs, and the clock that ends a detached stream nobody resumed. Thread-safe.
 */
public final class StreamRegistry {
  /** A server that registered no stream service. */
  public static StreamRegistry none() {
    return new StreamRegistry(
        Map.of(),
        StreamSettings.DEFAULTS,
        null,
        null,
        null,
        null,
        Oversight.NONE,
        DEFAULT_MAX_STREAMS_PER_CONNECTION,
        DEFAULT_MAX_DETACHED_STREAMS);
  }

  /** Streams one connection may have open unless the server says otherwise. */
  public static final int DEFAULT_MAX_STREAMS_PER_CONNECTION = 100;

  /** Streams the server keeps for a resume at once, across its connections, by default. */
  public static final int DEFAULT_MAX_DETACHED_STREAMS = 1000;

  /**
   * @param executor where stream work and the services' publishers start (never an event loop)
   * @param scheduler ends a detached stream at the end of its resume window
   * @param events where STREAM_* events go; null for none
   * @param maxStreamsPerConnection openings and RESUMEs past this many streams on one connection
   *     are refused
   * @param maxDetachedStreams a stream whose connection closes while the server keeps this many for
   *     a resume is lost at once
   */
  public static StreamRegistry of(
      Map<String, RawStreamService> services,
      StreamSettings settings,
      Executor executor,
      Scheduler scheduler,
      Ticker ticker,
      EventBus events,
      Oversight oversight,
      int maxStreamsPerConnection,
      int maxDetachedStreams) {
    return new StreamRegistry(
        services,
        settings,
        executor,
        scheduler,
        ticker,
        events,
        oversight,
        maxStreamsPerConnection,
        maxDetachedStreams);
  }

  private final Map<String, RawStreamService> services;
  private final StreamSettings settings;
  private final Executor executor;
  private final Scheduler scheduler;
  private final Ticker ticker;
  private final EventBus events;

  /** The server's interceptors and call observer, which see each opening (not a RESUME). */
  private final Oversight oversight;

  private final int maxStreamsPerConnection;

  /** Bounds what clients that come and go can leave behind, which no connection's cap sees. */
  private final int maxDetachedStreams;

  private final SecureRandom random = new SecureRandom();
  private final StreamItemCounts items = new StreamItemCounts();
  private final Map<String, ServerStream> byToken = new ConcurrentHashMap<>();

  /**
   * Streams between the loss of their connection and their resume or end; changed by their
   * contexts.
   */
  private final AtomicInteger detached = new AtomicInteger();

  StreamRegistry(
      Map<String, RawStreamService> services,
      StreamSettings settings,
      Executor executor,
      Scheduler scheduler,
      Ticker ticker,
      EventBus events,
      Oversight oversight,
      int maxStreamsPerConnection,
      int maxDetachedStreams) {
    this.oversight = oversight;
    this.maxStreamsPerConnection = maxStreamsPerConnection;
    this.maxDetachedStreams = maxDetachedStreams;
    this.services = Map.copyOf(services);
    this.settings = settings;
    this.executor = executor;
    this.scheduler = scheduler;
    this.ticker = ticker;
    this.events = events;
  }

  RawStreamService service(String name) {
    return services.get(name);
  }

  /** The names of the stream services. */
  Set<String> serviceNames() {
    return services.keySet();
  }

  int maxStreamsPerConnection() {
    return maxStreamsPerConnection;
  }

  Oversight oversight() {
    return oversight;
  }

  /** The items this server's streams sent and delivered, open ones included. */
  public StreamItemCounts items() {
    return items;
  }

  StreamSettings settings() {
    return settings;
  }

  Executor executor() {
    return executor;
  }

  Scheduler scheduler() {
    return scheduler;
  }

  Ticker ticker() {
    return ticker;
  }

  /**
   * @param items what the stream carried, when it ended; else null
   */
  void emit(TetherEvent.Kind kind, String detail, TetherEvent.StreamItems items) {
    if (events != null) {
      events.emit(kind, null, detail, null, items);
    }
  }

  /** A new unguessable token, with {@code stream} registered under it. */
  byte[] register(ServerStream stream) {
    byte[] token = new byte[StreamResume.TOKEN_BYTES];
    random.nextBytes(token);
    byToken.put(key(token), stream);
    return token;
  }

  /** The stream a RESUME names, or null when none is kept under that token. */
  ServerStream find(byte[] token) {
    return byToken.get(key(token));
  }

  void remove(byte[] token) {
    byToken.remove(key(token));
  }

  /** Streams open or waiting to be resumed now. */
  int size() {
    return byToken.size();
  }

  /**
   * A stream lost its connection: true when it may wait for a resume (counted until {@link
   * #reattached}), false when the server keeps {@code maxDetachedStreams} already.
   */
  boolean tryDetach() {
    int now;
    do {
      now = detached.get();
      if (now >= maxDetachedStreams) {
        return false;
      }
    } while (!detached.compareAndSet(now, now + 1));
    return true;
  }

  /** A stream {@link #tryDetach} counted was resumed or ended. */
  void reattached() {
    detached.decrementAndGet();
  }

  int maxDetachedStreams() {
    return maxDetachedStreams;
  }

  /** Streams waiting for their client to resume them now. */
  int detached() {
    return detached.get();
  }

  /**
   * The server is closing: every stream still kept ends, lost, and its client is told so; waits at
   * most {@code maxWaitMillis} for those words to be written before the connections close.
   */
  public void closeAll(String why, long maxWaitMillis) {
    List<CompletableFuture<Void>> told = new ArrayList<>();
    for (ServerStream s : byToken.values()) {
      told.add(s.lose(why));
    }
    try {
      CompletableFuture.allOf(told.toArray(CompletableFuture[]::new))
          .get(maxWaitMillis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // A stream whose context is stuck in a subscriber: its connection closes all the same.
    }
  }

  private static String key(byte[] token) {
    return Base64.getEncoder().encodeToString(token);
  }
}
