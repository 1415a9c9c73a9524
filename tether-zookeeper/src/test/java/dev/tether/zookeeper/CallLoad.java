package dev.tether.zookeeper;

import dev.tether.Idempotency;
import dev.tether.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Callers making blocking calls in a loop, each with a payload no other call uses, until stopped,
 * {@code maxCallsEach} calls or {@code maxTime}, whichever comes first: load with a bound.
 */
final class CallLoad implements AutoCloseable {
  private final AtomicBoolean stopping = new AtomicBoolean();
  private final AtomicInteger succeeded = new AtomicInteger();
  private final List<Throwable> failures = new CopyOnWriteArrayList<>();
  private final List<String> outcomes = Collections.synchronizedList(new ArrayList<>());

  /** For each outcome, in the same order: when its call started and how long it took, in ms. */
  private final List<long[]> timings = new ArrayList<>();

  private final long startNanos = System.nanoTime();
  private final CompletableFuture<?>[] callers;

  CallLoad(
      Proxy proxy,
      int callerCount,
      String operation,
      Idempotency idempotency,
      int maxCallsEach,
      Duration maxTime) {
    long deadlineNanos = startNanos + maxTime.toNanos();
    callers = new CompletableFuture<?>[callerCount];
    for (int c = 0; c < callerCount; c++) {
      String caller = "caller-" + c;
      callers[c] =
          CompletableFuture.runAsync(
              () -> {
                for (int i = 0;
                    i < maxCallsEach && !stopping.get() && System.nanoTime() < deadlineNanos;
                    i++) {
                  long callNanos = System.nanoTime();
                  String outcome;
                  try {
                    byte[] answer =
                        proxy.invoke(
                            operation,
                            (caller + "-" + i).getBytes(StandardCharsets.UTF_8),
                            idempotency);
                    succeeded.incrementAndGet();
                    outcome = new String(answer, StandardCharsets.UTF_8);
                  } catch (RuntimeException e) {
                    failures.add(e);
                    outcome = e.getClass().getSimpleName();
                  }
                  record(outcome, callNanos);
                }
              },
              runnable -> {
                Thread t = new Thread(runnable, caller);
                t.setDaemon(true);
                t.start();
              });
    }
  }

  private void record(String outcome, long callNanos) {
    long[] timing = {
      (callNanos - startNanos) / 1_000_000, (System.nanoTime() - callNanos) / 1_000_000
    };
    synchronized (outcomes) {
      outcomes.add(outcome);
      timings.add(timing);
    }
  }

  /**
   * The outcomes as runs of the same one, each with when its first call started (ms since the load
   * began), how many calls it has and its slowest call: what a failing test shows of its load.
   */
  String timeline() {
    StringBuilder out = new StringBuilder("[");
    synchronized (outcomes) {
      int i = 0;
      while (i < outcomes.size()) {
        int end = i;
        long slowest = 0;
        while (end < outcomes.size() && outcomes.get(end).equals(outcomes.get(i))) {
          slowest = Math.max(slowest, timings.get(end)[1]);
          end++;
        }
        out.append(
            String.format(
                "%s at %d ms: %d calls, the slowest %d ms; ",
                outcomes.get(i), timings.get(i)[0], end - i, slowest));
        i = end;
      }
    }
    return out.append("finished: ").append(finished()).append("]").toString();
  }

  /** Whether every caller reached its bound. */
  boolean finished() {
    return CompletableFuture.allOf(callers).isDone();
  }

  int succeeded() {
    return succeeded.get();
  }

  List<Throwable> failures() {
    return failures;
  }

  /**
   * What each call ended with, in the order they ended: the answer (the kv servers answer their
   * name) or the exception's simple class name; in call order with one caller.
   */
  List<String> outcomes() {
    synchronized (outcomes) {
      return List.copyOf(outcomes);
    }
  }

  /** Stops the callers and waits for their last calls to end. */
  @Override
  public void close() throws Exception {
    stopping.set(true);
    CompletableFuture.allOf(callers).get(30, TimeUnit.SECONDS);
  }
}
