package dev.tether.server;

import dev.tether.spi.Scheduler;
import io.netty.channel.Channel;
import java.util.function.BooleanSupplier;

/**
 * The age of one server connection: once its drawn age has passed since the handshake, {@code
 * onAged} runs (it answers whether the connection began to move its client: one already draining
 * for a shutdown does not), and then, when a grace is set, {@code onGraceOver} once the grace has
 * passed. Lives on the connection's loop, as every timer task of {@link ServerClock} does.
 */
final class AgeWatch {
  private final Channel channel;
  private final ServerClock clock;
  private final ConnectionAge age;
  private final BooleanSupplier onAged;
  private final Runnable onGraceOver;

  /** Non-null while the age or the grace is being timed. */
  private Scheduler.Cancellable timer;

  /** This connection's own age, drawn at start; 0 while not started or ages are off. */
  private long drawnNanos;

  AgeWatch(
      Channel channel,
      ServerClock clock,
      ConnectionAge age,
      BooleanSupplier onAged,
      Runnable onGraceOver) {
    this.channel = channel;
    this.clock = clock;
    this.age = age;
    this.onAged = onAged;
    this.onGraceOver = onGraceOver;
  }

  /** The handshake is done: the age counts from now. */
  void start() {
    if (age.isOn() && drawnNanos == 0) {
      drawnNanos = age.drawAgeNanos();
      timer = clock.schedule(channel, this::aged, drawnNanos);
    }
  }

  /** This connection's age as drawn, in nanoseconds; 0 when it never ages. */
  long drawnNanos() {
    return drawnNanos;
  }

  private void aged() {
    timer = null;
    if (onAged.getAsBoolean() && age.graceNanos() > 0) {
      timer = clock.schedule(channel, this::graceOver, age.graceNanos());
    }
  }

  private void graceOver() {
    timer = null;
    onGraceOver.run();
  }

  /** The connection closed: nothing more is timed. */
  void stop() {
    if (timer != null) {
      timer.cancel();
      timer = null;
    }
  }
}
