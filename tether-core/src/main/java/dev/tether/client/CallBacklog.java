package dev.tether.client;

import dev.tether.TetherException;
import java.util.ArrayDeque;

/**
 * The calls that found every slot of one connection taken (the server's limit, or unsent bytes over
 * the high-water mark), in arrival order: they wait here, unsent, for a slot on this connection or
 * for another lane of the same key. The runtime hears once per saturation, not once per waiting
 * call. Confined to the connection's event loop.
 */
final class CallBacklog {
  private final ArrayDeque<CallAttempt> waiting = new ArrayDeque<>(0);

  /**
   * True from the first call that waits until the backlog empties: the runtime heard of it once.
   */
  private boolean saturationReported;

  /** Adds a call; true when it is the first of a saturation, which the runtime must hear of. */
  boolean add(CallAttempt call) {
    waiting.add(call);
    if (saturationReported) {
      return false;
    }
    saturationReported = true;
    return true;
  }

  /**
   * The next call still wanting a slot, or null when none waits; calls that timed out or were
   * cancelled while they waited are dropped on the way, since they take no slot.
   */
  CallAttempt nextLive() {
    CallAttempt next = waiting.poll();
    while (next != null && next.isFinished()) {
      next = waiting.poll();
    }
    if (next == null && saturationReported) {
      saturationReported = false; // written only when it changes: this runs for every answer
    }
    return next;
  }

  /** The next waiting call, finished or not, or null; for moving the backlog elsewhere. */
  CallAttempt poll() {
    return waiting.poll();
  }

  /**
   * Ends the saturation when nothing waits any more: the next call that must wait is reported
   * again.
   */
  void endSaturationIfEmpty() {
    if (waiting.isEmpty()) {
      saturationReported = false;
    }
  }

  int size() {
    return waiting.size();
  }

  /** The connection closed: no waiting call was sent, so each may go elsewhere. */
  void failAll(Throwable cause) {
    TetherException why =
        cause instanceof TetherException t
            ? t
            : new TetherException(CloseCause.describe(cause), cause);
    for (CallAttempt call = poll(); call != null; call = poll()) {
      call.onNotSent(why);
    }
  }
}
