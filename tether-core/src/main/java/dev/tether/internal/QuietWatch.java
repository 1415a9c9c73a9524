package dev.tether.internal;

import dev.tether.spi.Scheduler;
import dev.tether.spi.Ticker;

/**
 * The shape every quiet-time watch of a connection shares (close on idle, heartbeats, reader idle):
 * at most one check scheduled at a time on the owner's thread, due when the quiet time since the
 * last activity could first reach a limit; the check decides, then re-arms for the time still
 * missing or stays disarmed until the owner arms it again. {@link #stop()} ends the watch for good.
 * Confined to its owner's thread; time comes from the injected ticker and scheduler.
 */
public abstract class QuietWatch {
  /** The handle of a stopped watch: nothing is scheduled and nothing ever will be. */
  private static final Scheduler.Cancellable STOPPED = () -> {};

  protected final Ticker ticker;

  /** Runs each check on the owner's thread, keeping time with the runtime's scheduler. */
  private final Scheduler onOwner;

  /** The check's task, made once rather than per arming. */
  private final Runnable due = this::onDue;

  /** Non-null while a check is scheduled; {@link #STOPPED} once the watch ended. */
  private Scheduler.Cancellable check;

  /**
   * @param onOwner a scheduler whose tasks run on the thread that owns the watch, and whose handle
   *     cancels even a task already due (as {@link OwnedTimer}'s does)
   */
  protected QuietWatch(Ticker ticker, Scheduler onOwner) {
    this.ticker = ticker;
    this.onOwner = onOwner;
  }

  /**
   * Applies the watch's rules at {@code nowNanos} (acting when a limit was reached) and returns the
   * delay from then until the next check, or -1 for none until the owner arms one.
   */
  protected abstract long check(long nowNanos);

  /** Schedules a check in {@code delayNanos}, unless one is scheduled or the watch stopped. */
  protected final void arm(long delayNanos) {
    if (check == null) {
      check = onOwner.schedule(due, delayNanos);
    }
  }

  /**
   * Schedules a check {@code delayNanos} after {@code fromNanos}, however late this runs; -1 arms
   * nothing.
   */
  protected final void armFrom(long fromNanos, long delayNanos) {
    if (delayNanos >= 0) {
      arm(Math.max(0, delayNanos - (ticker.nanoTime() - fromNanos)));
    }
  }

  /** True when no check is scheduled and the watch still runs: {@link #arm} would schedule one. */
  protected final boolean isDisarmed() {
    return check == null;
  }

  /** Ends the watch: no check runs again, not even one already due. */
  public final void stop() {
    Scheduler.Cancellable c = check;
    check = STOPPED;
    if (c != null) {
      c.cancel();
    }
  }

  private void onDue() {
    check = null;
    long now = ticker.nanoTime();
    armFrom(now, check(now));
  }
}
