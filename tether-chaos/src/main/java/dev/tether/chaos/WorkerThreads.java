package dev.tether.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The daemon threads of one load of the chaos run (calls or streams), started by name and awaited
 * together within one deadline, so that a worker stuck in a call or a stream is seen, not waited
 * for.
 */
final class WorkerThreads {
  private final LongSupplier nanoClock;
  private final List<Thread> threads = new ArrayList<>();

  WorkerThreads(LongSupplier nanoClock) {
    this.nanoClock = nanoClock;
  }

  void start(String name, Runnable work) {
    Thread t = new Thread(work, name);
    t.setDaemon(true);
    threads.add(t);
    t.start();
  }

  /** Waits at most {@code patience} for every worker to end; false when one is still at work. */
  boolean awaitStopped(Duration patience) throws InterruptedException {
    long deadline = nanoClock.getAsLong() + patience.toNanos();
    for (Thread t : threads) {
      long left = deadline - nanoClock.getAsLong();
      if (left > 0) {
        TimeUnit.NANOSECONDS.timedJoin(t, left);
      }
      if (t.isAlive()) {
        return false;
      }
    }
    return true;
  }
}
