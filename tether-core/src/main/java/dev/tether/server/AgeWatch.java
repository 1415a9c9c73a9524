package dev.tether.server;

import dev.tether.spi.Scheduler;
import io.netty.channel.Channel;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The age of one server connection: once its drawn age has passed since the handshake, {@code
 * moveClient} runs with the reason (it answers whether the connection began to move its client: one
 * already draining does not), the host counts the aged connection, and then, when a grace is set,
 * {@code onGraceOver} runs once the grace has passed. A move for another reason ({@link #moveNow})
 * ends the age and starts the same grace. Lives on the connection's loop, as every timer task of
 * {@link ServerClock} does.
 */
final class AgeWatch {
  private final Channel channel;
  private final ConnectionHost host;
  private final ConnectionAge age;
  private final Predicate<String> moveClient;
  private final Runnable onGraceOver;

  /** Non-null while the age or the grace is being timed. */
  private Scheduler.Cancellable timer;

  /** This connection's own age, drawn at start; 0 while not started or ages are off. */
  private long drawnNanos;

  AgeWatch(
      Channel channel, ConnectionHost host, Predicate<String> moveClient, Runnable onGraceOver) {
    this.channel = channel;
    this.host = host;
    this.age = host.connectionAge();
    this.moveClient = moveClient;
    this.onGraceOver = onGraceOver;
  }

  /** The handshake is done: the age counts from now. */
  void start() {
    if (age.isOn() && drawnNanos == 0) {
      drawnNanos = age.drawAgeNanos();
      timer = host.clock().schedule(channel, this::aged, drawnNanos);
    }
  }

  private void aged() {
    timer = null;
    long millis = TimeUnit.NANOSECONDS.toMillis(drawnNanos);
    if (moveClient.test("max connection age reached (" + millis + " ms)")) {
      host.connectionAged();
      startGrace();
    }
  }

  /**
   * The client is to move now for {@code why}, not for its age (the server is no longer the
   * primary): unless it is already moving or draining, its age is no longer timed and the grace
   * runs from now.
   */
  void moveNow(String why) {
    Scheduler.Cancellable ageTimer = timer;
    if (moveClient.test(why)) {
      if (ageTimer != null) {
        ageTimer.cancel();
      }
      timer = null;
      startGrace();
    }
  }

  private void startGrace() {
    if (age.graceNanos() > 0) {
      timer = host.clock().schedule(channel, this::graceOver, age.graceNanos());
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
