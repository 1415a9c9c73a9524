package dev.tether.grpc;

import dev.tether.spi.Scheduler;
import io.netty.util.internal.ThreadExecutorMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The response bytes one gRPC connection's calls have handed over and not yet written, and how many
 * a call that sends past its {@code isReady()} may add to them. A call that sends while ready is
 * never held up (it holds at most its ready threshold and one message). One that sends past it
 * while the connection holds more than the limit waits in its send for the client to read, as a
 * blocking socket would, and gives up (its call must end) when its client read none of that call's
 * bytes for a stall period (reading the connection's other streams saves it nothing), or when it
 * sends from an event loop, which must not wait. So a client that reads nothing cannot make a
 * service that sends in a loop fill the server, nor hold its thread for long. Any thread.
 */
final class OutboundBudget {
  private final long limit;
  private final long stallNanos;
  private final Scheduler scheduler;

  private final AtomicLong held = new AtomicLong();

  /** The most held at once; a racy maximum, since it is for status and tests only. */
  private volatile long peak;

  /** Sends waiting for room; read without the lock, so giving back bytes costs nothing else. */
  private volatile int waiting;

  // Guarded by this.
  private boolean checking;

  /**
   * Checks run while sends waited, one each half stall period: a waiting send's clock, fine enough
   * that it gives up between one and two stall periods after its call's bytes last moved.
   */
  private long checks;

  OutboundBudget(long limit, long stallNanos, Scheduler scheduler) {
    this.limit = limit;
    this.stallNanos = stallNanos;
    this.scheduler = scheduler;
  }

  /** The call a send belongs to, as a send that waits for room sees it. Any thread. */
  interface Sender {
    /** The call may still send. */
    boolean open();

    /** Under its ready threshold: what it sends is counted without waiting. */
    boolean ready();

    /** Its bytes written or dropped so far: whether its client reads it. */
    long progress();
  }

  /**
   * Counts {@code bytes} more as held. A call past its ready threshold that would take the
   * connection over its limit waits for room while it may still send; false (nothing counted) when
   * it gave up.
   */
  boolean take(long bytes, Sender sender) {
    if (tryTake(bytes, sender.ready())) {
      return true;
    }
    // An event loop that waited could be the very one that writes what it waits for.
    return ThreadExecutorMap.currentExecutor() == null && awaitRoom(bytes, sender);
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

  /**
   * Waits until the connection has room, or the call is ready again (its own bytes were written:
   * its stream is read, whatever the other streams hold), and gives up when none of the call's
   * bytes moved for a whole stall period (its client does not read it, even if it reads others).
   */
  private synchronized boolean awaitRoom(long bytes, Sender sender) {
    waiting++;
    try {
      checkForStallLater();
      long progress = sender.progress();
      long progressSeenAt = checks;
      while (sender.open()) {
        if (tryTake(bytes, sender.ready())) {
          return true;
        }
        long now = sender.progress();
        if (now != progress) {
          progress = now;
          progressSeenAt = checks;
        } else if (checks - progressSeenAt >= 3) {
          // Three checks since it was last seen to move: at least a whole stall period.
          return false;
        }
        wait();
      }
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } finally {
      waiting--;
    }
  }

  /** Under the lock: a check half a stall period from now, unless one is due. */
  private void checkForStallLater() {
    if (!checking) {
      checking = true;
      scheduler.schedule(this::checkForStall, stallNanos / 2);
    }
  }

  /** Each waiting send looks at its call's progress again, and at the room there is. */
  private synchronized void checkForStall() {
    checking = false;
    if (waiting > 0) {
      checks++;
      notifyAll();
      checkForStallLater();
    }
  }

  /**
   * {@code bytes} taken before were written, or will never be. Waiting sends are woken once the
   * connection is down to half its limit, not at each write, so they take room in large steps.
   */
  void give(long bytes) {
    long after = held.addAndGet(-bytes);
    if (after <= limit / 2) {
      wake();
    }
  }

  /** A call ended, or is ready again: a send of its that waits stops waiting. */
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

  /** Sends waiting for room now. */
  int waiting() {
    return waiting;
  }

  /** The most bytes held at once since the connection opened. */
  long peak() {
    return peak;
  }
}
