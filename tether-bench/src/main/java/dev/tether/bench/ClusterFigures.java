package dev.tether.bench;

import dev.tether.LoadBalancing;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.testkit.InProcessCluster;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Prints how each load-balancing strategy spreads calls over an in-process cluster on loopback, and
 * how long a killed node keeps receiving calls. Run with {@code java -cp
 * tether-bench/target/tether-bench.jar dev.tether.bench.ClusterFigures}.
 */
public final class ClusterFigures {
  private final Map<Integer, AtomicInteger> served = new ConcurrentHashMap<>();
  private final AtomicInteger stuck = new AtomicInteger();
  private final CountDownLatch release = new CountDownLatch(1);

  public static void main(String[] args) throws Exception {
    new ClusterFigures().run();
  }

  private void run() throws Exception {
    try (InProcessCluster cluster =
            InProcessCluster.start(
                3,
                (i, b) ->
                    b.service(
                        "svc",
                        (op, payload, ctx) -> {
                          served.computeIfAbsent(i, k -> new AtomicInteger()).incrementAndGet();
                          if (op.equals("stuck")) {
                            stuck.incrementAndGet();
                            release.await(60, TimeUnit.SECONDS);
                          }
                          return String.valueOf(i).getBytes(StandardCharsets.UTF_8);
                        }));
        Tether tether = Tether.create()) {
      String proxy = cluster.proxyString("svc");
      spread(
          "ROUND_ROBIN, 300 calls",
          tether.proxy(proxy).withLoadBalancing(LoadBalancing.ROUND_ROBIN),
          300);
      spread("RANDOM, 300 calls", tether.proxy(proxy).withLoadBalancing(LoadBalancing.RANDOM), 300);
      cluster.faultProxy(2).latency(Duration.ofMillis(20));
      spread(
          "EPSILON_GREEDY, node 2 slowed by 20 ms, 2,000 calls",
          tether.proxy(proxy).withLoadBalancing(LoadBalancing.EPSILON_GREEDY),
          2_000);
      cluster.faultProxy(2).pass();
      Proxy toNode0 = tether.proxy("svc:" + cluster.endpoint(0));
      for (int i = 0; i < 50; i++) {
        toNode0.invokeAsync("stuck", new byte[0]);
      }
      long waitUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (stuck.get() < 50 && System.nanoTime() < waitUntil) {
        Thread.onSpinWait();
      }
      spread(
          "LEAST_LOADED, node 0 holding 50 stuck calls, 300 calls",
          tether.proxy(proxy).withLoadBalancing(LoadBalancing.LEAST_LOADED),
          300);
      release.countDown();
      timeToSkip(cluster, tether, tether.proxy(proxy).withLoadBalancing(LoadBalancing.ROUND_ROBIN));
    }
  }

  private void spread(String title, Proxy p, int calls) {
    Map<Integer, Integer> before = snapshot();
    for (int i = 0; i < calls; i++) {
      p.invoke("hello", new byte[0]);
    }
    Map<Integer, Integer> after = snapshot();
    StringBuilder line = new StringBuilder(String.format("%-58s", title));
    for (int node = 0; node < 3; node++) {
      line.append(
          String.format(
              "  node %d: %5d", node, after.getOrDefault(node, 0) - before.getOrDefault(node, 0)));
    }
    System.out.println(line);
  }

  private Map<Integer, Integer> snapshot() {
    Map<Integer, Integer> out = new TreeMap<>();
    served.forEach((k, v) -> out.put(k, v.get()));
    return out;
  }

  /**
   * Kills node 1 under round robin and times how long the client takes to see its connection close,
   * the event on which the node is marked dead and skipped; then checks no call goes there.
   */
  private void timeToSkip(InProcessCluster cluster, Tether tether, Proxy p) {
    for (int i = 0; i < 30; i++) {
      p.invoke("hello", new byte[0]);
    }
    dev.tether.Connection toNode1 = tether.proxy("svc:" + cluster.endpoint(1)).connection();
    long start = System.nanoTime();
    cluster.faultProxy(1).resetAll();
    long deadline = start + TimeUnit.SECONDS.toNanos(10);
    while (tether.connection(toNode1).state() != dev.tether.ConnectionState.CLOSED
        && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    long detectedNanos = System.nanoTime() - start;
    cluster.kill(1);
    Map<Integer, Integer> before = snapshot();
    int failures = 0;
    for (int i = 0; i < 300; i++) {
      try {
        p.invoke("hello", new byte[0]);
      } catch (RuntimeException e) {
        failures++;
      }
    }
    int routedToDead = snapshot().getOrDefault(1, 0) - before.getOrDefault(1, 0);
    System.out.printf(
        "%-58s  %.3f ms; then 300 calls: %d to node 1, %d failed%n",
        "ROUND_ROBIN, node 1 reset: death seen and node skipped in",
        detectedNanos / 1e6,
        routedToDead,
        failures);
  }
}
