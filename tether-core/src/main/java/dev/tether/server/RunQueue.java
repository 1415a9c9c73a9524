package dev.tether.server;

import dev.tether.spi.Scheduler;
import io.netty.util.internal.PlatformDependent;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The shared queue of work waiting for the service executor (EXECUTOR mode's calls, SERIALIZED
 * mode's lanes), bounded: work that finds it full is refused (answered REFUSED) and never runs.
 * Calls are not handed to the executor one by one (each hand-off wakes a parked thread, which costs
 * more than a quick call); the executor runs drain tasks, and at most one wake-up is pending at a
 * time. A read burst wakes a drainer only when none is running: one that is already awake runs the
 * burst. So that a call that blocks cannot hold up the ones behind it, a burst that queues calls
 * behind others arms a stall check on its loop's timer: calls still queued when it fires get one
 * more drainer, and when no call ended during its wait, every drainer asks for one more before each
 * call until the queue empties. Work that may wait (a gRPC call's last notification) is queued
 * without a wake-up of its own: it runs with the next work a drainer is woken for, or a timer on
 * its loop wakes one within {@link #LAZY_CHECK_NANOS} twice over.
 */
final class RunQueue {
  /**
   * Calls (and lanes' turns) queued at most, as many calls as the bounded executor queue held
   * before.
   */
  static final int DEFAULT_BOUND = 1024;

  /**
   * How long calls may wait behind busy drainers before one more is woken: far longer than a quick
   * call, shorter than most blocking ones (a database query, a remote call). Each check is a timer
   * task on a loop, at most one armed at a time: with 100 us, arming them cost more than the
   * wake-ups they save at 16 and 128 calls in flight.
   */
  static final long STALL_CHECK_NANOS = 1_000_000;

  /**
   * How long work that may wait waits for a drainer woken for other work before the lazy check
   * wakes one. While calls flow the check finds that a drainer ran and arms again, so it fires this
   * often for nothing: at 1 ms, those timer wake-ups of an otherwise idle loop cost the server more
   * CPU per call (one call in flight) than the completions' own wake-ups they saved.
   */
  static final long LAZY_CHECK_NANOS = 10_000_000;

  private final Executor executor;

  /** Filled by the connections' loops, emptied by any drainer; every poll owns its call. */
  private final Queue<QueuedWork> calls;

  /** True from asking the executor for a drainer until that drainer starts. */
  private final AtomicBoolean wakeupPending = new AtomicBoolean();

  /**
   * Drainers handed to the executor and not yet finished. When the executor refuses a drainer and
   * none is left, nobody would ever reach the queued calls: they are refused instead.
   */
  private final AtomicInteger drainers = new AtomicInteger();

  private final Runnable drainer = this::drain;

  /** Set once by {@link #close}: from then on no queued call starts. */
  private volatile boolean closed;

  /** True from arming a stall check until it fires: one at a time is enough. */
  private final AtomicBoolean stallCheckArmed = new AtomicBoolean();

  /**
   * Set when a stall check found calls queued and none run to its end during its wait (a drainer is
   * blocked in a call), cleared by the drainer that empties the queue: meanwhile each drainer asks
   * for one more before it runs a call, so blocked calls delay the ones behind them by one wake-up
   * each.
   */
  private volatile boolean backlogged;

  /**
   * Calls run to their end, for the stall checks: one uncontended add per call while one drainer
   * runs.
   */
  private final LongAdder callsRun = new LongAdder();

  /**
   * {@link #callsRun} when the armed check was armed; plain, since the check runs on the loop that
   * armed it, only one is armed at a time, and the check reads it before letting another arm.
   */
  private long callsRunWhenArmed;

  /** Drainers started so far: tells the lazy check that one ran since it was armed. */
  private final AtomicInteger drainsStarted = new AtomicInteger();

  /** True from arming a lazy check until it finds nothing left to wake for. */
  private final AtomicBoolean lazyCheckArmed = new AtomicBoolean();

  /**
   * Set once by {@link #hurry}: the server drains and closes soon, after which nothing queued runs,
   * so work that may wait no longer does.
   */
  private volatile boolean hurried;

  /** Set by {@link #emptied}: completed by the first drainer that finds the queue empty after. */
  private volatile CompletableFuture<Void> emptiedSignal;

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

  /**
   * The server drains: what waits for a lazy check gets a drainer now, and work that may wait is
   * started as other work is from now on, so a graceful shutdown does not close the queue on a
   * completion whose lazy check has not fired yet.
   */
  void hurry() {
    hurried = true;
    if (!calls.isEmpty()) {
      wakeOne();
    }
  }

  /**
   * Completes once nothing is left queued (every piece taken by a drainer, which runs it), or the
   * queue closed: a graceful shutdown waits for it before {@link #close} would drop what waits.
   */
  CompletableFuture<Void> emptied() {
    CompletableFuture<Void> signal = new CompletableFuture<>();
    emptiedSignal = signal;
    if (closed || calls.isEmpty()) {
      signal.complete(null);
    } else {
      wakeOne(); // else a drainer on its way, or one that leaves it in its finally, reaches it
    }
    return signal;
  }

  /** True once {@link #close} ran: nothing queued starts any more. */
  boolean isClosed() {
    return closed;
  }

  /**
   * Starts the {@code queued} calls a read burst queued: wakes a drainer when none is running, else
   * leaves them to the one running. When a call may wait behind another that blocks (a drainer is
   * busy, or the burst queued more than one), arms a stall check on {@code loopTimer}, the timer of
   * the loop that read them, so the check wakes no other thread.
   */
  void start(int queued, Scheduler loopTimer) {
    boolean busy = drainers.get() > 0;
    if (!busy) {
      wakeOne(); // a drainer between its last poll and its exit sees the calls in its finally
    }
    if (busy || queued > 1) {
      armStallCheck(loopTimer);
    }
  }

  /**
   * Starts work queued with {@link #enqueue} that may wait: no wake-up of its own. A drainer woken
   * for other work runs it first (with one call in flight, the next call's); when none is woken
   * within a check's wait, the lazy check on {@code loopTimer} wakes one, so it waits at most two
   * waits. A drainer that runs now reaches it anyway. Once the server drains (see {@link #hurry})
   * it starts as {@link #start} starts a call.
   */
  void startLazily(Scheduler loopTimer) {
    if (hurried) {
      start(1, loopTimer);
      return;
    }
    if (lazyCheckArmed.get() || !lazyCheckArmed.compareAndSet(false, true)) {
      return;
    }
    armLazyCheck(loopTimer, drainsStarted.get());
  }

  private void armLazyCheck(Scheduler loopTimer, int drainsWhenArmed) {
    scheduleCheck(
        loopTimer, () -> checkLazy(loopTimer, drainsWhenArmed), LAZY_CHECK_NANOS, lazyCheckArmed);
  }

  /**
   * A drainer started since the check was armed ran what was queued before it: what is queued now
   * came later and gets a wait of its own. Else whatever waits gets a drainer now.
   */
  private void checkLazy(Scheduler loopTimer, int drainsWhenArmed) {
    if (closed || calls.isEmpty()) {
      lazyCheckArmed.set(false);
      if (!closed && !calls.isEmpty()) {
        startLazily(loopTimer); // queued between the look and the flag's drop
      }
      return;
    }
    int drainsNow = drainsStarted.get();
    if (drainsNow != drainsWhenArmed) {
      armLazyCheck(loopTimer, drainsNow);
      return;
    }
    lazyCheckArmed.set(false);
    wakeOne();
  }

  private void armStallCheck(Scheduler loopTimer) {
    if (stallCheckArmed.get() || !stallCheckArmed.compareAndSet(false, true)) {
      return;
    }
    callsRunWhenArmed = callsRun.sum();
    scheduleCheck(loopTimer, () -> checkForStall(loopTimer), STALL_CHECK_NANOS, stallCheckArmed);
  }

  /**
   * Schedules a check on its loop's timer; a stopped loop runs none, so the check's flag drops and
   * whatever waits gets a drainer now.
   */
  private void scheduleCheck(
      Scheduler loopTimer, Runnable check, long delayNanos, AtomicBoolean armed) {
    try {
      loopTimer.schedule(check, delayNanos);
    } catch (RejectedExecutionException loopStopped) {
      armed.set(false);
      wakeOne();
    }
  }

  /**
   * Calls still queued after a stall check's wait get one more drainer (more cores for a backlog
   * that lasts), and one more check while they stay; when no call ended meanwhile, a drainer is
   * blocked, and the drainers spread out until the queue empties.
   */
  private void checkForStall(Scheduler loopTimer) {
    // Read before the flag drops: from then on another loop may arm a check and overwrite it.
    long runWhenArmed = callsRunWhenArmed;
    stallCheckArmed.set(false);
    if (closed || calls.isEmpty()) {
      return;
    }
    if (callsRun.sum() == runWhenArmed) {
      backlogged = true;
    }
    wakeOne();
    armStallCheck(loopTimer);
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
        signalIfEmptied(); // no drainer will come to say so
      }
      // else a running drainer reaches the queued calls when its call ends; the bound holds
      // meanwhile
    }
  }

  private void drain() {
    wakeupPending.set(false);
    drainsStarted.incrementAndGet();
    try {
      QueuedWork call;
      while (!closed && (call = calls.poll()) != null) {
        if (backlogged && !calls.isEmpty()) {
          wakeOne(); // calls have been waiting: this one may block too, the next gets a thread of
          // its own
        }
        call.run();
        callsRun.increment();
      }
      backlogged = false;
      signalIfEmptied();
    } finally {
      drainers.decrementAndGet();
      // A call queued after the last poll whose submitter found this drainer still counted (and
      // so did not refuse it when the executor said no) is reached here.
      if (!closed && !calls.isEmpty()) {
        wakeOne();
      }
    }
  }

  /** Completes what {@link #emptied} returned once nothing is queued. */
  private void signalIfEmptied() {
    CompletableFuture<Void> signal = emptiedSignal;
    if (signal != null && calls.isEmpty()) {
      signal.complete(null);
    }
  }

  /**
   * Closed, or no drainer is left and the executor takes none: every queued call is answered
   * REFUSED.
   */
  private void refuseQueued() {
    QueuedWork call;
    while ((call = calls.poll()) != null) {
      call.refuse();
    }
  }
}
