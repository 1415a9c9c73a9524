package dev.tether.grpc.client;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The channel's own listener pool, as calls whose CallOptions name no executor see it: their event
 * runs (each call's one at a time, by its {@code SerialTasks}) queue here and the pool runs
 * drainers that take them in turn, never the event loop. Runs are not handed to the pool one by one
 * (each hand-off wakes a parked thread, which costs more than a quick listener): at most one
 * wake-up is pending, and answers read in one burst are run by the drainer already awake. So that a
 * listener that blocks cannot hold up the others for long, runs queued behind a busy drainer arm a
 * stall check: runs still queued when it fires get one more drainer, and when none ended during its
 * wait, every drainer asks for one more before each run until the queue empties.
 */
final class ListenerRuns implements Executor {
  private static final Logger log = LoggerFactory.getLogger(ListenerRuns.class);

  /**
   * How long runs may wait behind busy drainers before one more is woken: far longer than a quick
   * listener, shorter than most blocking ones.
   */
  static final long STALL_CHECK_NANOS = 1_000_000;

  private final Executor pool;

  /** Runs a stall check {@link #STALL_CHECK_NANOS} after it is handed a task. */
  private final Executor stallTimer;

  private final Queue<Runnable> runs = new ConcurrentLinkedQueue<>();

  /** True from asking the pool for a drainer until that drainer starts. */
  private final AtomicBoolean wakeupPending = new AtomicBoolean();

  /** Drainers handed to the pool and not yet finished. */
  private final AtomicInteger drainers = new AtomicInteger();

  private final AtomicBoolean stallCheckArmed = new AtomicBoolean();

  /** Set when a stall check found that no run ended during its wait; cleared once drained. */
  private volatile boolean backlogged;

  /** Runs finished, for the stall checks. */
  private final LongAdder ran = new LongAdder();

  /** {@link #ran} when the armed check was armed; the timer's hand-off publishes it. */
  private long ranWhenArmed;

  private final Runnable drainer = this::drain;

  /**
   * @param pool runs the drainers (the channel's cached pool)
   * @param stallTimer runs what it is handed about {@link #STALL_CHECK_NANOS} later, on a thread of
   *     its own that a stall check may use briefly
   */
  ListenerRuns(Executor pool, Executor stallTimer) {
    this.pool = pool;
    this.stallTimer = stallTimer;
  }

  /** Queues a call's event run; wakes a drainer when none is running (any thread). */
  @Override
  public void execute(Runnable run) {
    runs.add(run);
    if (drainers.get() == 0) {
      wakeOne(); // a drainer between its last poll and its exit sees the run in its finally
    } else {
      armStallCheck();
    }
  }

  private void armStallCheck() {
    if (stallCheckArmed.get() || !stallCheckArmed.compareAndSet(false, true)) {
      return;
    }
    ranWhenArmed = ran.sum();
    try {
      stallTimer.execute(this::checkForStall);
    } catch (RejectedExecutionException timerStopped) {
      stallCheckArmed.set(false);
      wakeOne();
    }
  }

  private void checkForStall() {
    long ranBefore = ranWhenArmed; // read before the flag drops and another arming overwrites it
    stallCheckArmed.set(false);
    if (runs.isEmpty()) {
      return;
    }
    if (ran.sum() == ranBefore) {
      backlogged = true;
    }
    wakeOne();
    armStallCheck();
  }

  /** Asks the pool for one more drainer, unless one asked for has not started yet. */
  private void wakeOne() {
    if (wakeupPending.get() || !wakeupPending.compareAndSet(false, true)) {
      return; // the pending drainer clears the flag before its first poll, so it sees the run
    }
    drainers.incrementAndGet();
    try {
      pool.execute(drainer);
    } catch (RejectedExecutionException shutDown) {
      wakeupPending.set(false);
      drainers.decrementAndGet();
      // The pool stops only once the channel's last call ended: what is left is late news
      // (a ready signal, a cancel's echo) for calls that ended.
      log.debug("the gRPC channel is terminated: late listener events are dropped");
    }
  }

  private void drain() {
    wakeupPending.set(false);
    try {
      Runnable run;
      while ((run = runs.poll()) != null) {
        if (backlogged && !runs.isEmpty()) {
          wakeOne(); // runs have been waiting: this one may block too, the next gets a thread
        }
        try {
          run.run();
        } catch (RuntimeException e) {
          log.warn("a gRPC listener's events failed", e);
        }
        ran.increment();
      }
      backlogged = false;
    } finally {
      drainers.decrementAndGet();
      if (!runs.isEmpty()) {
        wakeOne();
      }
    }
  }
}
