package dev.tether.testkit;

import dev.tether.spi.Scheduler;
import dev.tether.spi.Ticker;
import dev.tether.testing.ManualClock;
import java.time.Duration;

/**
 * A clock for tests that is both the {@link Ticker} and the {@link Scheduler} of a runtime: time
 * stands still until {@link #forward(Duration)} moves it, which runs every task that fell due, in
 * order. "Forward 9 ms: nothing; 1 ms more: the reconnect runs." Thread-safe. It is the clock
 * tether-core's own tests run on (its test fixtures' {@code ManualClock}), so a timing rule behaves
 * alike in both.
 */
public final class FakeClock extends ManualClock {

  /** A clock reading {@code startNanos}; any value works, the runtime only looks at differences. */
  public FakeClock(long startNanos) {
    super(startNanos);
  }

  /** A clock reading an arbitrary fixed time. */
  public FakeClock() {
    this(1_000_000_000_000L);
  }
}
