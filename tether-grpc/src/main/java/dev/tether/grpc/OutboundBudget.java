package dev.tether.grpc;

import dev.tether.spi.Scheduler;
import io.netty.util.internal.ThreadExecutorMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * The response bytes one gRPC connection's calls have handed over and not yet written, and how many
 * a call that sends past its {@code isReady()} may add to them. A call that sends while ready is
 * never held up (it holds at most its ready threshold and one message). One that sends past it
 * while the connection holds more than the limit waits in its send for the client to read, as a
 * blocking socket would, and gives up (its call must end) when its client read nothing for a stall
 * period, or when it sends from an event loop, which must not wait. So a client that reads nothing
 * cannot make a service that sends in a loop fill the server. Any thread.
 */
final class OutboundBudget {
  private final long limit;
  private final long stallNanos;
  private final Scheduler scheduler;

  private final AtomicLong held = new AtomicLong();

  /** Bytes given back since the connection opened: its progress, which a stall check compares. */
  private final AtomicLong given = new AtomicLong();

  /** The most held at once; a racy maximum, since it is for status and tests only. */
  private volatile long peak;

  /** Sends waiting for room; read without the lock, so giving back bytes costs nothing else. */
  private volatile int waiting;

  // Guarded by this.
  private boolean checking;
  private long givenAtCheck;

  /** The client read nothing for a stall period while sends waited: they all give up. */
  private boolean stalled;

  OutboundBudget(long limit, long stallNanos, Scheduler scheduler) {
    this.limit = limit;
    this.stallNanos = stallNanos;
    this.scheduler = scheduler;
  }

  /**
   * Counts {@code bytes} more as held. A call past its ready threshold ({@code callReady} false)
   * that would take the connection over its limit waits for room while {@code callOpen} says it may
   * still send; false (nothing counted) when it gave up.
   */
  boolean take(long bytes, boolean callReady, BooleanSupplier callOpen) {
    if (tryTake(bytes, callReady)) {
      return true;
    }
    // An event loop that waited could be the very one that writes what it waits for.
    return ThreadExecutorMap.currentExecutor() == null && awaitRoom(bytes, callOpen);
  }

  private boolean tryTake(long bytes, boolean callReady) {
    long after = held.addAndGet(bytes);
    if (!callReady && after > limit) {
      held.addAndGet(-bytes);
      return false;
    }
    if (after > peak) {
      peak = after;
    }
    return true;
  }

  private synchronized boolean awaitRoom(long bytes, BooleanSupplier callOpen) {
    waiting++;
    try {
      checkForStallLater();
      while (callOpen.getAsBoolean() && !stalled) {
        if (tryTake(bytes, false)) {
          return true;
        }
        wait();
      }
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } finally {
      if (--waiting == 0) {
        stalled = false;
      }
    }
  }

  /** Under the lock: a check one stall period from now, unless one is due. */
  private void checkForStallLater() {
    if (!checking) {
      checking = true;
      givenAtCheck = given.get();
      scheduler.schedule(this::checkForStall, stallNanos);
    }
  }

  private synchronized void checkForStall() {
    checking = false;
    if (waiting == 0) {
      return;
    }
    stalled = given.get() == givenAtCheck;
    // Either way the waiting sends look again: with progress, there may be room below the mark.
    notifyAll();
    if (!stalled) {
      checkForStallLater();
    }
  }

  /**
   * {@code bytes} taken before were written, or will never be. Waiting sends are woken once the
   * connection is down to half its limit, not at each write, so they take room in large steps.
   */
  void give(long bytes) {
    long after = held.addAndGet(-bytes);
    given.addAndGet(bytes);
    if (after <= limit / 2) {
      wake();
    }
  }

  /** A call ended: a send of its that waits stops waiting. */
  void wake() {
    if (waiting > 0) {
      synchronized (this) {
        notifyAll();
      }
    }
  }

  long limit() {
    return limit;
  }

  long stallNanos() {
    return stallNanos;
  }

  /** Bytes held now. */
  long held() {
    return held.get();
  }

  /** The most bytes held at once since the connection opened. */
  long peak() {
    return peak;
  }
}
