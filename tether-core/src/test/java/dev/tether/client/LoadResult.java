package dev.tether.client;

import dev.tether.ConnectionLostException;
import dev.tether.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Closed-loop callers making non-idempotent calls while a disruption runs, bounded in calls and
 * time; counts what happened to every call.
 */
record LoadResult(
    long successes, long failures, long mayHaveExecutedFailures, Throwable firstFailure) {

  long failuresOtherThanMayHaveExecuted() {
    return failures - mayHaveExecutedFailures;
  }

  /**
   * Runs {@code callers} threads calling {@code withdraw} until the disruption has finished and
   * each caller made at least a few more calls, or {@code maxTime} passed, or {@code
   * maxCallsPerCaller} were made.
   */
  static LoadResult run(
      Proxy proxy,
      int callers,
      Duration maxTime,
      int maxCallsPerCaller,
      ThrowingRunnable disruption)
      throws Exception {
    AtomicLong ok = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    AtomicLong mayHaveRun = new AtomicLong();
    AtomicReference<Throwable> first = new AtomicReference<>();
    AtomicLong disruptionDone = new AtomicLong();
    long deadline = System.nanoTime() + maxTime.toNanos();
    List<Thread> threads = new ArrayList<>();
    for (int c = 0; c < callers; c++) {
      Thread t =
          new Thread(
              () -> {
                long callsAfterDisruption = 0;
                for (int i = 0;
                    i < maxCallsPerCaller
                        && System.nanoTime() < deadline
                        && callsAfterDisruption < 50;
                    i++) {
                  try {
                    proxy.invoke("withdraw", new byte[0]);
                    ok.incrementAndGet();
                  } catch (RuntimeException e) {
                    failed.incrementAndGet();
                    first.compareAndSet(null, e);
                    if (e instanceof ConnectionLostException lost && lost.mayHaveExecuted()) {
                      mayHaveRun.incrementAndGet();
                    }
                  }
                  if (disruptionDone.get() == 1) {
                    callsAfterDisruption++;
                  }
                }
              },
              "caller-" + c);
      threads.add(t);
      t.start();
    }
    try {
      disruption.run();
    } finally {
      disruptionDone.set(1);
      for (Thread t : threads) {
        t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000 + 1_000));
      }
    }
    return new LoadResult(ok.get(), failed.get(), mayHaveRun.get(), first.get());
  }

  /** A disruption step that may throw. */
  @FunctionalInterface
  interface ThrowingRunnable {
    void run() throws Exception;
  }
}
