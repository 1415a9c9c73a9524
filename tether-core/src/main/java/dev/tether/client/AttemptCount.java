package dev.tether.client;

/**
 * Numbers a key's dial attempts and remembers whether a call's demand started the current one, not
 * the backoff's schedule: a call that joined a scheduled attempt may not redial after it, or a
 * crowd of callers would dial a dead server once per call. Owned by the supervisor, on the control
 * executor.
 */
final class AttemptCount {
  /** Attempts made so far; the current or last one is number {@code current}. */
  private long current;

  /** True when a call's demand started the current attempt. */
  private boolean onDemand;

  long current() {
    return current;
  }

  boolean onDemand() {
    return onDemand;
  }

  /** A new attempt starts; until {@link #startedOnDemand} says otherwise, the schedule's. */
  void started() {
    current++;
    onDemand = false;
  }

  /** The attempt just started was a call's. */
  void startedOnDemand() {
    onDemand = true;
  }
}
