package dev.tether.cli.demo;

import dev.tether.cli.kv.KeyValue;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

/**
 * The demo's callers: one thread each, making blocking calls in a fixed cycle of five (put, get,
 * put, get, increment: 80% idempotent) until stopped, until a hard deadline, or until a call budget
 * runs out, whichever comes first. Each caller owns its keys, so it can check that a get returns
 * what it put; all callers increment one shared counter.
 */
final class Workload {
  /** The counter every caller increments. */
  static final String COUNTER = "demo-counter";

  private static final int KEYS_PER_CALLER = 100;

  private final KeyValue kv;
  private final int callers;
  private final long maxCallsPerCaller;
  private final long hardDeadlineNanos;
  private final LongSupplier nanoClock;
  private final ClientTally tally;
  private final ExecutorService threads;
  private final List<Future<?>> running = new ArrayList<>();
  private volatile boolean stopRequested;

  /**
   * @param hardDeadlineNanos on {@code nanoClock}: callers stop by themselves then, even if never
   *     told
   */
  Workload(
      KeyValue kv,
      int callers,
      long maxCallsPerCaller,
      long hardDeadlineNanos,
      LongSupplier nanoClock,
      ClientTally tally) {
    this.kv = kv;
    this.callers = callers;
    this.maxCallsPerCaller = maxCallsPerCaller;
    this.hardDeadlineNanos = hardDeadlineNanos;
    this.nanoClock = nanoClock;
    this.tally = tally;
    // Daemon threads: a caller stuck in a call must not keep the JVM alive.
    this.threads =
        Executors.newFixedThreadPool(callers, new DefaultThreadFactory("demo-caller", true));
  }

  void start() {
    for (int i = 1; i <= callers; i++) {
      int caller = i;
      running.add(threads.submit(() -> callUntilStopped(caller)));
    }
  }

  /** Tells the callers to stop after their current call. */
  void requestStop() {
    stopRequested = true;
  }

  /**
   * Waits for every caller to finish its current call; call after {@link #requestStop()}.
   *
   * @return false when a caller was still busy after {@code patience}
   */
  boolean awaitStopped(Duration patience) throws InterruptedException {
    long giveUpNanos = nanoClock.getAsLong() + patience.toNanos();
    boolean allStopped = true;
    for (Future<?> f : running) {
      try {
        f.get(Math.max(0, giveUpNanos - nanoClock.getAsLong()), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        allStopped = false;
      } catch (ExecutionException e) {
        // callUntilStopped catches what calls throw; anything else is a bug worth showing.
        throw new IllegalStateException("a caller died: " + e.getCause(), e.getCause());
      }
    }
    threads.shutdownNow();
    return allStopped;
  }

  private boolean shouldStop() {
    return stopRequested || nanoClock.getAsLong() - hardDeadlineNanos >= 0;
  }

  private void callUntilStopped(int caller) {
    // The value each key slot should hold, as far as this caller knows; null when unknown.
    String[] expected = new String[KEYS_PER_CALLER];
    for (long i = 0; i < maxCallsPerCaller && !shouldStop(); i++) {
      int slot = (int) ((i / 5) % KEYS_PER_CALLER);
      String key = "caller-" + caller + "-key-" + slot;
      switch ((int) (i % 5)) {
        case 0, 2 -> expected[slot] = put(key, "value-" + i);
        case 1, 3 -> get(key, expected[slot]);
        default -> increment();
      }
    }
  }

  /** Returns the value now stored, or null when the put failed and the store is in doubt. */
  private String put(String key, String value) {
    try {
      KeyValue.Entry e = kv.put(key, value);
      tally.succeeded(Operation.PUT, e.server());
      return value;
    } catch (RuntimeException e) {
      tally.failed(Operation.PUT, e);
      return null;
    }
  }

  private void get(String key, String expected) {
    try {
      KeyValue.Entry e = kv.get(key);
      tally.succeeded(Operation.GET, e.server());
      if (expected != null) {
        tally.getChecked(expected.equals(e.value()));
      }
    } catch (RuntimeException e) {
      tally.failed(Operation.GET, e);
    }
  }

  private void increment() {
    try {
      KeyValue.Count c = kv.increment(COUNTER);
      tally.succeeded(Operation.INCREMENT, c.server());
    } catch (RuntimeException e) {
      tally.failed(Operation.INCREMENT, e);
    }
  }
}
