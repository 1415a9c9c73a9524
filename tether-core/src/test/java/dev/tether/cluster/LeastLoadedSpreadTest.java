package dev.tether.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.Idempotency;
import dev.tether.LoadBalancing;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Least-loaded over identical servers spreads as evenly as random picks: 30 servers on the in-JVM
 * transport, 8 callers, 30,000 calls, the busiest server within 1.1 times the mean.
 */
class LeastLoadedSpreadTest {
  private static final int SERVERS = 30;
  private static final int CALLS = 30_000;

  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final ExecutorService callers = Executors.newFixedThreadPool(8);

  @AfterEach
  void stop() throws Exception {
    callers.shutdownNow();
    callers.awaitTermination(10, TimeUnit.SECONDS);
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  @Test
  void identicalServersGetWithinATenthOfTheMean() throws Exception {
    AtomicIntegerArray served = new AtomicIntegerArray(SERVERS);
    StringBuilder proxy = new StringBuilder("svc");
    for (int i = 0; i < SERVERS; i++) {
      int index = i;
      TetherServer s =
          TetherServer.builder()
              .endpoints("local -h spread -p 0")
              .service(
                  "svc",
                  (op, payload, ctx) -> {
                    served.incrementAndGet(index);
                    return payload;
                  })
              .build()
              .start();
      closeables.add(s);
      proxy.append(':').append(s.endpoints().get(0));
    }
    // Identical servers answer in identical time only on a quiet machine: under load a stalled
    // call can make one node look four times slower for a while, and least-loaded rightly gives it
    // fewer calls. A clock that stands still makes every latency equal, so what is measured here is
    // the tie-breaking itself, the same on any machine.
    Tether t = Tether.builder().ticker(() -> 0L).random(new Random(7)).build();
    closeables.add(t);
    Proxy p = t.proxy(proxy.toString()).withLoadBalancing(LoadBalancing.LEAST_LOADED);
    p.connectAsync();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                t.status().nodes().stream().filter(n -> n.health().equals("ALIVE")).count()
                    == SERVERS);

    AtomicInteger left = new AtomicInteger(CALLS);
    List<CompletableFuture<Void>> done = new ArrayList<>();
    for (int c = 0; c < 8; c++) {
      done.add(
          CompletableFuture.runAsync(
              () -> {
                while (left.getAndDecrement() > 0) {
                  p.invoke("echo", new byte[0], Idempotency.IDEMPOTENT);
                }
              },
              callers));
    }
    CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);

    int most = 0;
    for (int i = 0; i < SERVERS; i++) {
      most = Math.max(most, served.get(i));
    }
    double mean = (double) CALLS / SERVERS;
    assertThat(most / mean).as("the busiest server's calls over the mean").isLessThanOrEqualTo(1.1);
  }
}
