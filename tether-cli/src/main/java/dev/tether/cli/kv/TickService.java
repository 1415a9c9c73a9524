package dev.tether.cli.kv;

import dev.tether.CallContext;
import dev.tether.RawStreamService;
import dev.tether.spi.Scheduler;
import dev.tether.testkit.NumberedStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The demo's stream service {@code ticks}: numbered items "1", "2", ..., so a receiver can see that
 * none came twice or went missing. Operation {@code count} sends them as fast as the client asks;
 * {@code tick} one per tick interval. The request is how many (decimal text); none, or a negative
 * number, means without end. Each item is counted in the server's stats as it is sent.
 */
final class TickService implements RawStreamService, AutoCloseable {
  /** The operations, as {@code tether call --stream} names them. */
  static final String COUNT = "count";

  static final String TICK = "tick";

  private final Duration tickInterval;
  private final ServerStats stats;

  /** One daemon thread paces every {@code tick} stream of this server. */
  private final ScheduledExecutorService pacer;

  TickService(Duration tickInterval, ServerStats stats) {
    if (tickInterval.isNegative() || tickInterval.isZero()) {
      throw new IllegalArgumentException("the tick interval must be positive: " + tickInterval);
    }
    this.tickInterval = tickInterval;
    this.stats = stats;
    this.pacer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "demo-ticks");
              t.setDaemon(true);
              return t;
            });
  }

  @Override
  public Flow.Publisher<byte[]> open(
      String operation, byte[] request, Flow.Publisher<byte[]> inbound, CallContext context) {
    NumberedStream items =
        NumberedStream.of(count(operation, request)).onEachItem(n -> stats.itemStreamed());
    return switch (operation) {
      case COUNT -> items;
      case TICK -> items.paced(tickInterval, scheduler());
      default ->
          throw new IllegalArgumentException(
              "ticks has operations \""
                  + COUNT
                  + "\" and \""
                  + TICK
                  + "\"; got \""
                  + operation
                  + "\"");
    };
  }

  private static long count(String operation, byte[] request) {
    String text = new String(request, StandardCharsets.UTF_8).trim();
    if (text.isEmpty()) {
      return -1;
    }
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "ticks."
              + operation
              + " takes how many items to send, a decimal number (none: without end); got \""
              + text
              + "\"");
    }
  }

  private Scheduler scheduler() {
    return (task, delayNanos) -> {
      ScheduledFuture<?> due = pacer.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
      return () -> due.cancel(false);
    };
  }

  /** Stops the pacing thread: a tick stream still open sends nothing more. */
  @Override
  public void close() {
    pacer.shutdownNow();
  }
}
