package dev.tether.client;

import dev.tether.spi.Scheduler;
import dev.tether.spi.Ticker;

/**
 * Closes a connection nobody calls on (Ice's ACM close-on-idle): once it has had no call in flight
 * for {@code idleNanos}, its owner is told to close it. Idle means no call, not no bytes, so
 * heartbeats do not keep an unused connection open. Confined to the connection's event loop; time
 * comes from the injected ticker and scheduler.
 */
final class IdleCloser {
  /** What the closer asks of its connection. */
  interface Owner {
    void closeIdle(String reason);
  }

  private final long idleNanos;
  private final Ticker ticker;
  private final Scheduler loop;
  private final Owner owner;
  private boolean busy;
  private long idleSinceNanos;

  /** Non-null only while a check is scheduled. */
  private Scheduler.Cancellable check;

  private boolean stopped;

  IdleCloser(long idleNanos, Ticker ticker, Scheduler loop, Owner owner) {
    this.idleNanos = idleNanos;
    this.ticker = ticker;
    this.loop = loop;
    this.owner = owner;
  }

  /** The connection carries no call from now on. */
  void onIdle() {
    busy = false;
    idleSinceNanos = ticker.nanoTime();
    if (check == null && !stopped) {
      check = loop.schedule(this::runCheck, idleNanos);
    }
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

  /** The connection was found busy after all (it carries streams): the idle period starts again. */
  void restart() {
    stopped = false;
    onIdle();
  }

  void stop() {
    stopped = true;
    if (check != null) {
      check.cancel();
      check = null;
    }
  }

  private void runCheck() {
    check = null;
    if (stopped || busy) {
      return; // the next onIdle schedules again
    }
    long idleFor = ticker.nanoTime() - idleSinceNanos;
    if (idleFor >= idleNanos) {
      stopped = true;
      owner.closeIdle("no call for " + idleFor / 1_000_000 + " ms");
    } else {
      check = loop.schedule(this::runCheck, idleNanos - idleFor);
    }
  }
}
