package dev.tether.client;

import dev.tether.Proxy;
import dev.tether.TetherException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * A crowd of callers against a server that stays down, and the dials the default backoff allows
 * them: what the tests of a call's rounds and of their attack measure the supervisor's pacing by.
 */
final class DeadServerCrowd {
  private DeadServerCrowd() {}

  /**
   * Dials a streak of the default backoff (100 ms doubling, ±20%) may make in {@code elapsedNanos}:
   * the first, and one per delay, each at its shortest.
   */
  static int dialsTheBackoffAllowsWithin(long elapsedNanos) {
    int dials = 1;
    double at = 0;
    double delay = Duration.ofMillis(100).toNanos();
    while ((at += delay * 0.8) <= elapsedNanos) {
      dials++;
      delay *= 2;
    }
    return dials;
  }

  /** {@code threads} callers, each calling for {@code length} and at most 100,000 times. */
  static long hammer(Proxy p, int threads, Duration length) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<Long>> runs = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        runs.add(
            pool.submit(
                () -> {
                  long end = System.nanoTime() + length.toNanos();
                  long calls = 0;
                  for (int n = 0; n < 100_000 && System.nanoTime() < end; n++) {
                    try {
                      p.invoke("hello", new byte[0]);
                    } catch (TetherException expected) {
                      // the server is down throughout
                    }
                    calls++;
                  }
                  return calls;
                }));
      }
      long total = 0;
      for (Future<Long> f : runs) {
        total += f.get(length.toMillis() + 10_000, TimeUnit.MILLISECONDS);
      }
      return total;
    } finally {
      pool.shutdownNow();
    }
  }
}
