package dev.tether.spi;

/**
 * Runs tasks after a delay. Every timed decision of a runtime (handshake deadlines, heartbeats,
 * reconnect backoff, retry rounds, invocation timeouts, waits for a node) is scheduled through one,
 * so tests can substitute a fake clock that runs due tasks when told to. The runtime hands each
 * task on to the thread that owns the state it touches; a scheduler only keeps time.
 */
@FunctionalInterface
public interface Scheduler {
  /** Runs {@code task} once after {@code delayNanos}; the handle cancels it. */
  Cancellable schedule(Runnable task, long delayNanos);

  /** A scheduled task that can still be called off. */
  @FunctionalInterface
  interface Cancellable {
    void cancel();
  }
}
