package dev.tether.chaos;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many calls or streams a ledger has opened and not yet closed, and a wait for none to be left:
 * what a run waits on before it judges, so that it judges only what has ended.
 */
final class OpenCount {
  private final AtomicInteger open = new AtomicInteger();

  void opened() {
    open.incrementAndGet();
  }

  void closed() {
    if (open.decrementAndGet() == 0) {
      synchronized (open) {
        open.notifyAll();
      }
    }
  }

  int get() {
    return open.get();
  }

  /** Waits at most {@code timeoutNanos} until everything opened so far was closed. */
  boolean awaitNone(long timeoutNanos) throws InterruptedException {
    long deadline = System.nanoTime() + timeoutNanos;
    synchronized (open) {
      while (open.get() > 0) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(open, left);
      }
    }
    return true;
  }
}
