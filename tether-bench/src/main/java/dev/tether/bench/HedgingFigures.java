package dev.tether.bench;

import dev.tether.Idempotency;
import dev.tether.LoadBalancing;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.testkit.InProcessCluster;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.HdrHistogram.Histogram;

/**
 * Tail latency with and without hedging, side by side in one run: three nodes on loopback, one of
 * them 100 ms slower (a fault proxy's latency), idempotent calls round-robin over them; prints
 * p50/p99/p99.9 and the extra load (server executions per call) of each. Run with {@code java -cp
 * tether-bench/target/tether-bench.jar dev.tether.bench.HedgingFigures [calls]}.
 */
public final class HedgingFigures {
  private static final Duration SLOW_NODE_EXTRA = Duration.ofMillis(100);
  private static final Duration HEDGE_DELAY = Duration.ofMillis(10);

  private final AtomicInteger executions = new AtomicInteger();

  public static void main(String[] args) throws Exception {
    int calls = args.length > 0 ? Integer.parseInt(args[0]) : 600;
    new HedgingFigures().run(calls);
  }

  private void run(int calls) throws Exception {
    try (InProcessCluster cluster =
            InProcessCluster.start(
                3,
                (i, b) ->
                    b.service(
                        "svc",
                        (op, payload, ctx) -> {
                          executions.incrementAndGet();
                          return String.valueOf(i).getBytes(StandardCharsets.UTF_8);
                        }));
        Tether tether = Tether.create()) {
      cluster.faultProxy(2).latency(SLOW_NODE_EXTRA);
      Proxy plain =
          tether.proxy(cluster.proxyString("svc")).withLoadBalancing(LoadBalancing.ROUND_ROBIN);
      Proxy hedged = plain.withHedging(HEDGE_DELAY, 2);
      measure("warm-up", tether, plain, calls / 4, false);
      measure("warm-up", tether, hedged, calls / 4, false);
      System.out.printf(
          "3 nodes, node 2 slowed by %d ms, %d idempotent calls each, one at a time;%n"
              + "retry budget: 20%% of the calls of the last 10 s plus 10 a second (the defaults)%n",
          SLOW_NODE_EXTRA.toMillis(), calls);
      System.out.printf(
          "%-28s %9s %9s %9s %16s %8s %8s %8s%n",
          "", "p50(us)", "p99(us)", "p99.9(us)", "executions/call", "hedges", "refused", "seconds");
      measure("no hedging", tether, plain, calls, true);
      measure(
          "hedging after " + HEDGE_DELAY.toMillis() + " ms, 2 max", tether, hedged, calls, true);
    }
  }

  private void measure(String title, Tether tether, Proxy p, int calls, boolean print) {
    Histogram h = new Histogram(3);
    int before = executions.get();
    long hedgesBefore = tether.status().retries();
    long refusedBefore = tether.status().retryBudgetExhausted();
    long startNanos = System.nanoTime();
    long bound = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    int done = 0;
    for (; done < calls && System.nanoTime() < bound; done++) {
      long start = System.nanoTime();
      p.invoke("read", new byte[0], Idempotency.IDEMPOTENT);
      h.recordValue((System.nanoTime() - start) / 1_000);
    }
    if (print) {
      System.out.printf(
          "%-28s %9d %9d %9d %16.2f %8d %8d %8.1f%n",
          title,
          h.getValueAtPercentile(50),
          h.getValueAtPercentile(99),
          h.getValueAtPercentile(99.9),
          (executions.get() - before) / (double) done,
          tether.status().retries() - hedgesBefore,
          tether.status().retryBudgetExhausted() - refusedBefore,
          (System.nanoTime() - startNanos) / 1e9);
    }
  }
}
