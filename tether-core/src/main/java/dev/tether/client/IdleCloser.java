package dev.tether.client;

import dev.tether.internal.QuietWatch;
import dev.tether.spi.Scheduler;
import dev.tether.spi.Ticker;

/**
 * Closes a connection nobody calls on (Ice's ACM close-on-idle): once it has had no call in flight
 * for {@code idleNanos}, its owner is told to close it. Idle means no call, not no bytes, so
 * heartbeats do not keep an unused connection open. Confined to the connection's event loop; time
 * comes from the injected ticker and scheduler.
 */
final class IdleCloser extends QuietWatch {
  /** What the closer asks of its connection. */
  interface Owner {
    /**
     * Closes the idle connection; false when it turned out busy after all (it carries streams), and
     * the idle period starts again.
     */
    boolean closeIdle(String reason);
  }

  private final long idleNanos;
  private final Owner owner;
  private boolean busy;
  private long idleSinceNanos;

  IdleCloser(long idleNanos, Ticker ticker, Scheduler loop, Owner owner) {
    super(ticker, loop);
    this.idleNanos = idleNanos;
    this.owner = owner;
  }

  /** The connection carries no call from now on. */
  void onIdle() {
    busy = false;
    idleSinceNanos = ticker.nanoTime();
    arm(idleNanos);
  }

  /**
   * A call went out. A twoway one keeps the connection busy until {@link #onIdle()}; a oneway one
   * is never waited for, so it only starts the idle period again.
   */
  void onBusy(boolean twoway) {
    if (twoway) {
      busy = true;
    } else if (!busy) {
      idleSinceNanos = ticker.nanoTime();
    }
  }

  @Override
  protected long check(long nowNanos) {
    if (busy) {
      return -1; // the next onIdle arms again
    }
    long idleFor = nowNanos - idleSinceNanos;
    if (idleFor < idleNanos) {
      return idleNanos - idleFor;
    }
    if (owner.closeIdle("no call for " + idleFor / 1_000_000 + " ms")) {
      stop();
      return -1;
    }
    idleSinceNanos = nowNanos;
    return idleNanos;
  }
}
