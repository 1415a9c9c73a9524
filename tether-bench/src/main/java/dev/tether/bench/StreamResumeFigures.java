package dev.tether.bench;

import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.observe.TetherEvent;
import dev.tether.testkit.FaultProxy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;

/**
 * How long a stream takes to resume after its connection is reset: one JVM, a Tether server behind
 * a {@link FaultProxy}, one server stream of 64 B items the client takes as fast as they come;
 * then, N times, every connection through the proxy gets an RST (both sides see "connection
 * reset"). For each reset it reports the time from the new connection's CONNECTED event to the
 * STREAM_RESUMED event, and to the first item the subscriber gets over the new connection (a replay
 * when the reset lost items in flight); and from the reset to CONNECTED (the client's reconnect).
 * Events carry the moment they were emitted on the runtime's ticker, the JVM's nanoTime, as does
 * the subscriber's clock; their delivery to the listener is later. STREAM_RESUMED is emitted in the
 * stream's context before the new connection's first item is delivered there, so the first item at
 * or after it came over the new connection; items the old connection had read before the reset may
 * still reach the subscriber after CONNECTED.
 *
 * <p>Usage: {@code StreamResumeFigures [resets]} (default 20); each reset bounded by 10 s.
 */
public final class StreamResumeFigures {
  private static final int ITEM_BYTES = 64;
  private static final long STEP_TIMEOUT_SECONDS = 10;

  private final TimedSubscriber subscriber = new TimedSubscriber();
  private volatile CompletableFuture<Long> connected = new CompletableFuture<>();
  private volatile CompletableFuture<Long> resumed = new CompletableFuture<>();

  public static void main(String[] args) throws Exception {
    int resets = args.length > 0 ? Integer.parseInt(args[0]) : 20;
    new StreamResumeFigures().run(resets);
    System.exit(0); // the runtime's and the proxy's daemon threads are done
  }

  private void run(int resets) throws Exception {
    try (TetherServer server =
            TetherServer.builder()
                .endpoints("tcp -h 127.0.0.1 -p 0")
                .streamService(TetherStreams.SERVICE, TetherStreams::open)
                .build()
                .start();
        FaultProxy faults = FaultProxy.start("127.0.0.1", server.endpoints().get(0).port());
        Tether tether = Tether.builder().listener(this::onEvent).build()) {
      Proxy proxy = tether.proxy(TetherStreams.SERVICE + ":" + faults.endpoint());
      proxy.stream(TetherStreams.FEED, StampedItems.request(ITEM_BYTES)).subscribe(subscriber);
      awaitItems(50_000); // warm: the stream runs, and the JIT compiled its path
      long[] toConnected = new long[resets];
      long[] toResumed = new long[resets];
      long[] toFirstItem = new long[resets];
      for (int i = 0; i < resets; i++) {
        awaitItems(10_000); // the stream moves on the new connection before the next reset
        connected = new CompletableFuture<>();
        resumed = new CompletableFuture<>();
        subscriber.arm();
        long resetNanos = System.nanoTime();
        faults.resetAll();
        long connectedNanos = connected.get(STEP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        long resumedNanos = resumed.get(STEP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        long firstNanos =
            subscriber.firstItemAtOrAfter(resumedNanos).get(STEP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        toConnected[i] = connectedNanos - resetNanos;
        toResumed[i] = resumedNanos - connectedNanos;
        toFirstItem[i] = firstNanos - connectedNanos;
      }
      if (subscriber.failure != null) {
        throw new IllegalStateException("the stream failed", subscriber.failure);
      }
      System.out.printf(
          Locale.ROOT,
          "%d resets (RST both ways through a fault proxy), one server stream of %d B items, one JVM;"
              + " %,d items delivered in all%n",
          resets,
          ITEM_BYTES,
          subscriber.items());
      System.out.printf(
          Locale.ROOT, "%-48s %10s %10s %10s%n", "", "median(ms)", "p90(ms)", "max(ms)");
      print("reset -> CONNECTED (the reconnect)", toConnected);
      print("CONNECTED -> STREAM_RESUMED", toResumed);
      print("CONNECTED -> first item over the new connection", toFirstItem);
    }
  }

  private void onEvent(TetherEvent event) {
    if (event.kind() == TetherEvent.Kind.CONNECTED) {
      connected.complete(event.nanos());
    } else if (event.kind() == TetherEvent.Kind.STREAM_RESUMED) {
      resumed.complete(event.nanos());
    }
  }

  private void awaitItems(long more) throws InterruptedException {
    long until = subscriber.items() + more;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(STEP_TIMEOUT_SECONDS);
    while (subscriber.items() < until) {
      if (System.nanoTime() > deadline || subscriber.failure != null) {
        throw new IllegalStateException(
            "the stream stopped at " + subscriber.items() + " items", subscriber.failure);
      }
      Thread.sleep(5); // a benchmark's polling, not a test's wait
    }
  }

  private static void print(String what, long[] nanos) {
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    System.out.printf(
        Locale.ROOT,
        "%-48s %10.2f %10.2f %10.2f%n",
        what,
        sorted[sorted.length / 2] / 1e6,
        sorted[(int) Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.9) - 1)] / 1e6,
        sorted[sorted.length - 1] / 1e6);
  }

  /**
   * Takes everything; once armed it notes when each item arrived, so the first one after a moment
   * known only later (an event's) can be found.
   */
  private static final class TimedSubscriber implements Flow.Subscriber<byte[]> {
    private static final int MAX_NOTED = 1 << 20;
    private final List<Long> noted = new ArrayList<>();
    private volatile long items;
    private volatile Throwable failure;
    private boolean armed;

    @Override
    public void onSubscribe(Flow.Subscription s) {
      s.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(byte[] item) {
      long now = System.nanoTime();
      items++; // one stream's signals are serial
      synchronized (this) {
        if (armed && noted.size() < MAX_NOTED) {
          noted.add(now);
        }
      }
    }

    synchronized void arm() {
      noted.clear();
      armed = true;
    }

    /**
     * The first arrival at or after {@code nanos}, once there is one (polled, bounded by the
     * caller's get).
     */
    CompletableFuture<Long> firstItemAtOrAfter(long nanos) {
      return CompletableFuture.supplyAsync(
          () -> {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(STEP_TIMEOUT_SECONDS);
            while (System.nanoTime() < deadline) {
              synchronized (this) {
                for (long at : noted) {
                  if (at >= nanos) {
                    armed = false;
                    return at;
                  }
                }
              }
              try {
                Thread.sleep(1);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
              }
            }
            throw new IllegalStateException("no item after the new connection");
          });
    }

    long items() {
      return items;
    }

    @Override
    public void onError(Throwable cause) {
      failure = cause;
    }

    @Override
    public void onComplete() {
      failure = new IllegalStateException("a stream without end completed");
    }
  }
}
