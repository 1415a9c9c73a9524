package dev.tether.client;

import dev.tether.TetherException;
import dev.tether.internal.Backoff;
import dev.tether.spi.Scheduler;
import java.util.concurrent.TimeUnit;

/**
 * The reconnect backoff of one key: its supervisor's one failure streak, the next attempt that
 * streak scheduled, and why the last attempt failed. Belongs to its {@link ConnectionSupervisor},
 * on the runtime's control executor.
 */
final class ReconnectBackoff {
  private final SupervisorHost host;
  private Backoff backoff;

  /** Non-null from the first failure of a streak until the key is READY or forgets it. */
  private Backoff.Streak streak;

  /** Non-null only while the streak's next attempt is scheduled. */
  private Scheduler.Cancellable nextAttempt;

  private long nextAttemptNanos;
  private TetherException lastFailure;

  ReconnectBackoff(SupervisorHost host, Backoff backoff) {
    this.host = host;
    this.backoff = backoff;
  }

  /** Streaks from now on follow {@code next} (a node group's preset). */
  void use(Backoff next) {
    backoff = next;
  }

  /** The key is READY: the streak ended and its failure is forgotten. */
  void onReady() {
    streak = null;
    lastFailure = null;
  }

  /**
   * A ready connection was lost: a new streak starts, whose first attempt runs at once (only a
   * failed attempt waits).
   */
  void startStreak() {
    streak = backoff.newStreak(host.random());
  }

  /** An attempt failed with {@code cause}: {@code attempt} runs after the streak's next delay. */
  void scheduleNext(TetherException cause, Runnable attempt) {
    if (streak == null) {
      streak = backoff.newStreak(host.random());
    }
    long delay = streak.nextDelayNanos();
    lastFailure = cause;
    nextAttemptNanos = host.ticker().nanoTime() + delay;
    nextAttempt = host.scheduleOnControl(attempt, delay);
  }

  /** The scheduled attempt is due: nothing is left to cancel. */
  void onAttemptDue() {
    nextAttempt = null;
  }

  /** Calls off the scheduled attempt, if any; the streak goes on. */
  void cancelNext() {
    if (nextAttempt != null) {
      nextAttempt.cancel();
      nextAttempt = null;
    }
  }

  /** The credentials changed: the streak says nothing of the new ones and is forgotten. */
  void forget() {
    cancelNext();
    streak = null;
  }

  /** When the next attempt is due on the runtime's ticker; meaningful while one is scheduled. */
  long nextAttemptNanos() {
    return nextAttemptNanos;
  }

  /** Why the last attempt failed or the connection broke; null once READY. */
  TetherException lastFailure() {
    return lastFailure;
  }

  /** How long until the next attempt, in whole milliseconds, never below 0. */
  long millisToNextAttempt() {
    return Math.max(0, TimeUnit.NANOSECONDS.toMillis(nextAttemptNanos - host.ticker().nanoTime()));
  }

  /** What the key backs off after and how long it still waits, in words. */
  String note() {
    return (lastFailure == null ? "" : "after: " + lastFailure.getMessage() + "; ")
        + "next attempt due in "
        + millisToNextAttempt()
        + " ms";
  }
}
