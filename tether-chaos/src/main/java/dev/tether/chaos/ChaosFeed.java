package dev.tether.chaos;

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
 * The servers' side of the stream ledger: each stream sends the items "1" to "N" (N is the request,
 * in decimal), one per tick, so the client can tell by number which arrived twice and which went
 * missing. The operation names the stream (its ledger id) and is not read here. One daemon thread,
 * shared by every node that registers this feed, paces all streams; {@link #close()} stops it.
 */
public final class ChaosFeed implements RawStreamService, AutoCloseable {
  /** The stream service's name. */
  public static final String NAME = "chaos-feed";

  private final Duration tick;
  private final ScheduledExecutorService pacer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "chaos-feed-pacer");
            t.setDaemon(true);
            return t;
          });
  private final Scheduler scheduler =
      (task, delayNanos) -> {
        ScheduledFuture<?> due = pacer.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
        return () -> due.cancel(false);
      };

  /** A feed sending one item per {@code tick}. */
  public ChaosFeed(Duration tick) {
    this.tick = tick;
  }

  @Override
  public Flow.Publisher<byte[]> open(
      String operation, byte[] request, Flow.Publisher<byte[]> inbound, CallContext context) {
    long items = Long.parseLong(new String(request, StandardCharsets.US_ASCII));
    return NumberedStream.of(items).paced(tick, scheduler);
  }

  @Override
  public void close() {
    pacer.shutdownNow();
  }
}
