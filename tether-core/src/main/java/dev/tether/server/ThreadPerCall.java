package dev.tether.server;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code ExecutionMode.VIRTUAL_THREADS}: each call starts at once on a thread of its own (a virtual
 * thread per task), so nothing waits in a queue and a call that blocks holds up no other.
 *
 * <p>What bounds it: each connection already keeps at most its in-flight limit (the {@code
 * maxConcurrentRequests} WELCOME announced) accepted, and refuses the rest; on top of that the
 * server as a whole runs at most {@code maxRunning} calls at once, datagrams included, so many
 * connections together cannot grow threads without bound either. Another protocol's calls (gRPC)
 * count against the same bound while their work holds a thread ({@link #threads()}). A call beyond
 * it is refused (answered REFUSED, so the client knows it never ran and may send it elsewhere), as
 * EXECUTOR refuses work that finds its run queue full.
 *
 * <p>Closing follows EXECUTOR's rules: from {@link #close} on, new calls are refused, and a call
 * whose thread has not yet reached it never starts (it is refused); calls running finish, unless
 * the server interrupts their threads.
 */
final class ThreadPerCall {
  private final Executor threads;
  private final int maxRunning;

  /**
   * Calls handed a thread and not finished, refused ones never; the bound is checked against it.
   */
  private final AtomicInteger running = new AtomicInteger();

  /** Set once by {@link #close}. */
  private volatile boolean closed;

  ThreadPerCall(Executor threads, int maxRunning) {
    if (maxRunning < 1) {
      throw new IllegalArgumentException(
          "at least one call must be able to run, got " + maxRunning);
    }
    this.threads = threads;
    this.maxRunning = maxRunning;
  }

  /**
   * Starts {@code call} on a thread of its own, or refuses it when the server is full or closing
   * (any thread).
   */
  void start(ServiceCall call) {
    if (closed) {
      call.refuse();
      return;
    }
    if (running.incrementAndGet() > maxRunning) {
      release();
      call.refuse(); // the server runs as many calls as it may: this one never starts
      return;
    }
    try {
      threads.execute(() -> runCounted(call));
    } catch (RejectedExecutionException stopped) {
      release();
      call.refuse();
    }
  }

  private void runCounted(ServiceCall call) {
    try {
      if (closed) {
        call.refuse();
      } else {
        call.run();
      }
    } finally {
      release();
    }
  }

  private void release() {
    running.decrementAndGet();
  }

  /**
   * The threads for another protocol's work (a gRPC call's events, which its protocol hands over
   * one task at a time per call): each task holds one of the bound's places while it runs, as a
   * Tether call does, so the calls of all protocols together never run more than the bound at once.
   * A task beyond it is refused with {@link RejectedExecutionException}, and the protocol offers it
   * again shortly: its call is under way and cannot be answered REFUSED.
   */
  Executor threads() {
    return counted;
  }

  private final Executor counted = this::executeCounted;

  private void executeCounted(Runnable task) {
    if (running.incrementAndGet() > maxRunning) {
      release();
      throw new RejectedExecutionException(
          "the server runs " + maxRunning + " calls at once already");
    }
    try {
      threads.execute(() -> runCounted(task));
    } catch (RejectedExecutionException stopped) {
      release();
      throw stopped;
    }
  }

  private void runCounted(Runnable task) {
    try {
      task.run();
    } finally {
      release();
    }
  }

  /** Calls running now (or handed a thread that has not reached them yet). */
  int running() {
    return running.get();
  }

  /** The server closes: calls not started yet never start, and new ones are refused. */
  void close() {
    closed = true;
  }
}
