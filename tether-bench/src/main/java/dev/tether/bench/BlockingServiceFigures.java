package dev.tether.bench;

import dev.tether.ExecutionMode;
import dev.tether.Proxy;
import dev.tether.RawService;
import dev.tether.Tether;
import dev.tether.TetherServer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * A service that blocks for 50 ms under 2,000 calls in flight, on an {@code EXECUTOR} server (a
 * pool of at most 256 threads, 1,024 calls queued in front of it) and on a {@code VIRTUAL_THREADS}
 * one (a virtual thread per call), side by side in one run: calls/s, p50/p99 from send to answer,
 * and the calls that failed (refused by a full server: a closed loop sends the next call at once,
 * so a refused slot keeps knocking). A closed loop over one connection: each answer sends the next
 * call. Needs Java 21 or later for the second row. Run with {@code java -cp
 * tether-bench/target/tether-bench.jar dev.tether.bench.BlockingServiceFigures [inFlight]
 * [measureSeconds] [warmupSeconds]}.
 */
public final class BlockingServiceFigures {
  private static final long SERVICE_MILLIS = 50;
  private static final byte[] PAYLOAD = new byte[16];

  public static void main(String[] args) throws Exception {
    int inFlight = args.length > 0 ? Integer.parseInt(args[0]) : 2_000;
    Duration measure = Duration.ofSeconds(args.length > 1 ? Long.parseLong(args[1]) : 5);
    Duration warmup = Duration.ofSeconds(args.length > 2 ? Long.parseLong(args[2]) : 2);
    System.out.printf(
        "service blocks %d ms; %d calls in flight on one connection; %d s measured after %d s"
            + " of warm-up; Java %s, %d cores%n",
        SERVICE_MILLIS,
        inFlight,
        measure.toSeconds(),
        warmup.toSeconds(),
        Runtime.version(),
        Runtime.getRuntime().availableProcessors());
    System.out.printf(
        "%-16s %10s %9s %9s %9s %10s  %s%n",
        "mode", "calls/s", "p50(ms)", "p99(ms)", "max(ms)", "failed/s", "why they failed");
    for (ExecutionMode mode :
        new ExecutionMode[] {ExecutionMode.EXECUTOR, ExecutionMode.VIRTUAL_THREADS}) {
      measure(mode, inFlight, warmup, measure);
    }
  }

  private static void measure(ExecutionMode mode, int inFlight, Duration warmup, Duration measure)
      throws Exception {
    RawService blocking =
        (operation, payload, context) -> {
          Thread.sleep(
              SERVICE_MILLIS); // what a blocking service does: a virtual thread leaves its carrier
          // here
          return payload;
        };
    TetherServer.Builder builder =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service("blocking", blocking)
            .executionMode(mode);
    TetherServer server;
    try {
      server = builder.build().start();
    } catch (IllegalStateException unavailable) {
      System.out.printf("%-16s %s%n", mode, unavailable.getMessage());
      return;
    }
    try (server;
        Tether tether = Tether.create()) {
      Proxy proxy = tether.proxy(server.proxyString("blocking"));
      ClosedLoop.run(proxy, inFlight, warmup);
      ClosedLoop result = ClosedLoop.run(proxy, inFlight, measure);
      Histogram h = result.latencyMicros;
      double seconds = measure.toNanos() / 1e9;
      System.out.printf(
          "%-16s %,10.0f %9.1f %9.1f %9.1f %,10.0f  %s%n",
          mode,
          result.answered.get() / seconds,
          h.getValueAtPercentile(50) / 1e3,
          h.getValueAtPercentile(99) / 1e3,
          h.getMaxValue() / 1e3,
          result.failed.get() / seconds,
          String.join(", ", result.failures.keySet()));
    }
  }

  /**
   * {@code inFlight} calls at a time for a while: each answer records its latency and sends the
   * next call.
   */
  private static final class ClosedLoop {
    private final Proxy proxy;
    private final long endNanos;
    private final CountDownLatch slotsDone;

    /** Answers that arrived before the end, and their latencies. */
    private final AtomicLong answered = new AtomicLong();

    private final AtomicLong failed = new AtomicLong();
    private final Histogram latencyMicros = new ConcurrentHistogram(3);

    /** The kinds of failure seen, by exception name. */
    private final Map<String, Boolean> failures = new ConcurrentHashMap<>();

    private ClosedLoop(Proxy proxy, int inFlight, long endNanos) {
      this.proxy = proxy;
      this.endNanos = endNanos;
      this.slotsDone = new CountDownLatch(inFlight);
    }

    static ClosedLoop run(Proxy proxy, int inFlight, Duration length) throws InterruptedException {
      ClosedLoop loop = new ClosedLoop(proxy, inFlight, System.nanoTime() + length.toNanos());
      for (int i = 0; i < inFlight; i++) {
        loop.send();
      }
      // Each slot ends with its last answer; a call still unanswered a minute on is a bug, not a
      // figure.
      if (!loop.slotsDone.await(length.toSeconds() + 60, TimeUnit.SECONDS)) {
        throw new IllegalStateException(loop.slotsDone.getCount() + " calls never ended");
      }
      return loop;
    }

    private void send() {
      long start = System.nanoTime();
      if (start >= endNanos) {
        slotsDone.countDown();
        return;
      }
      proxy
          .invokeAsync("block", PAYLOAD)
          .whenComplete(
              (answer, failure) -> {
                long end = System.nanoTime();
                if (failure != null) {
                  failed.incrementAndGet();
                  Throwable cause = failure.getCause() != null ? failure.getCause() : failure;
                  failures.putIfAbsent(cause.getClass().getSimpleName(), Boolean.TRUE);
                } else if (end < endNanos) {
                  answered.incrementAndGet();
                  latencyMicros.recordValue((end - start) / 1_000);
                }
                send();
              });
    }
  }
}
