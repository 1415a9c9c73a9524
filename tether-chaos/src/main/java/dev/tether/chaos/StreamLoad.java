package dev.tether.chaos;

import dev.tether.LoadBalancing;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.testkit.NumberedStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

/**
 * The chaos run's streams: {@code workers} threads, each opening one stream of {@link ChaosFeed}
 * after another on the round-robin proxy, beside the calls, until the deadline or its stream
 * budget. Each stream is opened in the {@link StreamLedger} first; its subscriber checks every
 * item's number and closes the ledger entry when the stream ends. The operation is the stream's
 * ledger id ({@code s17}), so the client's STREAM_RESUMED events name the stream they resumed.
 */
public final class StreamLoad {
  /** Items per stream, one per tick: a stream lasts about a second, less than a drain's grace. */
  static final long ITEMS = 100;

  public static final Duration TICK = Duration.ofMillis(10);

  /**
   * The subscriber asks for this many ahead, then for {@link #BATCH} more each time that many
   * arrived: credits and acknowledgements flow all along, a frame per batch rather than per item.
   */
  private static final long AHEAD = 32;

  private static final long BATCH = 16;
  private static final String OPERATION_PREFIX = "s";

  private final Proxy proxy;
  private final StreamLedger ledger;
  private final LongSupplier nanoClock;

  /**
   * How long a worker waits for one stream before it opens the next (the stream stays in the
   * ledger).
   */
  private final Duration patience;

  private final WorkerThreads threads;
  private volatile boolean stopRequested;

  /**
   * @param proxyString the cluster's proxy string for {@link ChaosFeed#NAME}
   * @param patience how long a stream may take at most: its items, a resume window, an opening
   */
  public StreamLoad(
      Tether tether,
      String proxyString,
      StreamLedger ledger,
      Duration callTimeout,
      Duration patience,
      LongSupplier nanoClock) {
    this.proxy =
        tether
            .proxy(proxyString)
            .withLoadBalancing(LoadBalancing.ROUND_ROBIN)
            .withInvocationTimeout(callTimeout);
    this.ledger = ledger;
    this.patience = patience;
    this.nanoClock = nanoClock;
    this.threads = new WorkerThreads(nanoClock);
  }

  /** The ledger id of the stream a client event names ("chaos-feed.s17: ..."), or -1. */
  static int streamIdOf(String eventDetail) {
    String prefix = ChaosFeed.NAME + "." + OPERATION_PREFIX;
    if (eventDetail == null || !eventDetail.startsWith(prefix)) {
      return -1;
    }
    int end = prefix.length();
    while (end < eventDetail.length() && Character.isDigit(eventDetail.charAt(end))) {
      end++;
    }
    return end == prefix.length()
        ? -1
        : Integer.parseInt(eventDetail.substring(prefix.length(), end));
  }

  /**
   * Starts the workers; each opens at most {@code streamsPerWorker} streams and none after {@code
   * deadlineNanos}.
   */
  public void start(int workers, long streamsPerWorker, long deadlineNanos) {
    for (int w = 0; w < workers; w++) {
      threads.start("chaos-streams-" + w, () -> work(streamsPerWorker, deadlineNanos));
    }
  }

  public void requestStop() {
    stopRequested = true;
  }

  /**
   * Waits at most {@code most} for every worker to end; false when one still waits for its stream.
   */
  public boolean awaitStopped(Duration most) throws InterruptedException {
    return threads.awaitStopped(most);
  }

  private void work(long maxStreams, long deadlineNanos) {
    byte[] request = Long.toString(ITEMS).getBytes(StandardCharsets.US_ASCII);
    for (long i = 0;
        i < maxStreams && !stopRequested && nanoClock.getAsLong() - deadlineNanos < 0;
        i++) {
      int id = ledger.open();
      if (id < 0) {
        return;
      }
      NumberCheck check = new NumberCheck(id);
      proxy.stream(OPERATION_PREFIX + id, request).subscribe(check);
      try {
        check.ended.get(patience.toNanos(), TimeUnit.NANOSECONDS);
      } catch (ExecutionException | TimeoutException e) {
        // Ended badly (the ledger has it) or not yet (the ledger reports it if it never does).
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /**
   * One stream's subscriber: tallies the numbers, and closes the stream's ledger entry when it
   * ends.
   */
  private final class NumberCheck implements Flow.Subscriber<byte[]> {
    private final int id;
    private final CompletableFuture<Void> ended = new CompletableFuture<>();
    private final NumberedStream.Tally tally = new NumberedStream.Tally();
    private Flow.Subscription subscription;

    NumberCheck(int id) {
      this.id = id;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
      subscription = s;
      s.request(AHEAD);
    }

    @Override
    public void onNext(byte[] item) {
      tally.add(item);
      if (tally.items() % BATCH == 0) {
        subscription.request(BATCH);
      }
    }

    @Override
    public void onError(Throwable failure) {
      ledger.close(id, tally.items(), tally.duplicates(), tally.gaps(), failure);
      ended.completeExceptionally(failure);
    }

    @Override
    public void onComplete() {
      ledger.close(id, tally.items(), tally.duplicates(), tally.gaps(), null);
      ended.complete(null);
    }
  }
}
