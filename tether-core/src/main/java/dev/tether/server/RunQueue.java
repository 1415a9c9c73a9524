package dev.tether.server;

import io.netty.util.internal.PlatformDependent;
import java.util.Queue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The shared queue of work waiting for the service executor (EXECUTOR mode's calls, SERIALIZED
 * mode's lanes), bounded: work that finds it full is refused (answered REFUSED) and never runs. Calls are not handed to the executor one
 * by one (each hand-off would wake a parked worker); instead the executor runs drain tasks, and at
 * most one wake-up is pending at a time. A drainer, before it runs a call, asks for one more
 * drainer when calls are still queued, so a call that blocks delays the ones behind it by one
 * wake-up only, while a burst of quick calls is run by the one thread already awake.
 */
final class RunQueue {
  /** Calls (and lanes' turns) queued at most, as many calls as the bounded executor queue held before. */
  static final int DEFAULT_BOUND = 1024;

  private final Executor executor;
  /** Filled by the connections' loops, emptied by any drainer; every poll owns its call. */
  private final Queue<QueuedWork> calls;
  /** True from asking the executor for a drainer until that drainer starts. */
  private final AtomicBoolean wakeupPending = new AtomicBoolean();
  /**
   * Drainers handed to the executor and not yet finished. When the executor refuses a drainer
   * and none is left, nobody would ever reach the queued calls: they are refused instead.
   */
  private final AtomicInteger drainers = new AtomicInteger();
  private final Runnable drainer = this::drain;
  /** Set once by {@link #close}: from then on no queued call starts. */
  private volatile boolean closed;

  RunQueue(Executor executor, int bound) {
    this.executor = executor;
    this.calls = PlatformDependent.newFixedMpmcQueue(bound);
  }

  /** Queues the call for a worker and wakes one if none is on its way (any thread). */
  void submit(QueuedWork call) {
    if (enqueue(call)) {
      wakeOne();
    }
  }

  /**
   * Queues the call without waking a worker; the caller calls {@link #wakeOne} once it queued a
   * burst, so one wake-up serves the burst. REFUSED at once, and false, when the queue is full.
   */
  boolean enqueue(QueuedWork call) {
    if (closed || !calls.offer(call)) {
      call.refuse();
      return false;
    }
    if (closed) {
      refuseQueued(); // close() may have emptied the queue just before our offer
      return false;
    }
    return true;
  }

  /**
   * The server closes: calls still queued never start (they are answered REFUSED, which reaches
   * only connections still open), and calls submitted from now on are refused. Calls running now
   * finish; every call either runs once or is refused once, since each poll owns what it took.
   */
  void close() {
    closed = true;
    refuseQueued();
  }

  /** Asks the executor for one more drainer, unless one asked for has not started yet. */
  void wakeOne() {
    if (wakeupPending.get() || !wakeupPending.compareAndSet(false, true)) {
      return; // the pending drainer clears the flag before its first poll, so it sees our call
    }
    drainers.incrementAndGet();
    try {
      executor.execute(drainer);
    } catch (RejectedExecutionException full) {
      wakeupPending.set(false);
      if (drainers.decrementAndGet() == 0) {
        refuseQueued();
      }
      // else a running drainer reaches the queued calls when its call ends; the bound holds meanwhile
    }
  }

  private void drain() {
    wakeupPending.set(false);
    try {
      QueuedWork call;
      while (!closed && (call = calls.poll()) != null) {
        if (!calls.isEmpty()) {
          wakeOne(); // this call may block: the next one gets a thread of its own
        }
        call.run();
      }
    } finally {
      drainers.decrementAndGet();
      // A call queued after the last poll whose submitter found this drainer still counted (and
      // so did not refuse it when the executor said no) is reached here.
      if (!closed && !calls.isEmpty()) {
        wakeOne();
      }
    }
  }

  /** Closed, or no drainer is left and the executor takes none: every queued call is answered REFUSED. */
  private void refuseQueued() {
    QueuedWork call;
    while ((call = calls.poll()) != null) {
      call.refuse();
    }
  }
}
