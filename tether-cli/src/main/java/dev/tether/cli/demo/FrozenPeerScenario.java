package dev.tether.cli.demo;

import java.time.Duration;
import java.util.Objects;

/**
 * A frozen network under a quiet client: one server behind a {@code FaultProxy}, one caller, and at
 * {@code freezeAfter} the proxy stops moving bytes without closing anything. No read, write or
 * connect fails after that; only the client's heartbeats can find out, and the run times how long
 * they take. Run by {@link FrozenPeerRun}.
 *
 * @param name what {@code --scenario} calls it
 * @param description one line for the summary and {@code --help}
 * @param callInterval how often the caller starts a call
 * @param freezeAfter when the proxy freezes, after the caller started (the command may override it)
 * @param slack how long past the bound (idleTimeout + readerIdle) the run waits for detection
 *     before it gives up: it bounds the run and leaves room to see a late detection as late
 */
public record FrozenPeerScenario(
    String name, String description, Duration callInterval, Duration freezeAfter, Duration slack)
    implements DemoScenario {

  public FrozenPeerScenario {
    Objects.requireNonNull(name);
    Objects.requireNonNull(description);
    requirePositive(callInterval, "callInterval");
    requirePositive(freezeAfter, "freezeAfter");
    requirePositive(slack, "slack");
  }

  private static void requirePositive(Duration d, String what) {
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(what + " must be positive: " + d);
    }
  }
}
