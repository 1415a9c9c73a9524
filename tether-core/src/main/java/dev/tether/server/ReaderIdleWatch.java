package dev.tether.server;

import dev.tether.spi.Scheduler;
import io.netty.channel.Channel;

/**
 * Reader-idle enforcement for one server connection: a client that has sent nothing for the
 * server's reader idle is gone (a live one would have pinged), and {@code onSilent} runs once to
 * end it. Any bytes count as life; the connection reports them once per read burst. One check is
 * scheduled at a time, due when the quiet time could first reach the limit. Lives on the
 * connection's loop, as every timer task of {@link ServerClock} does.
 */
final class ReaderIdleWatch {
  private final Channel channel;
  private final ServerClock clock;

  /** Close after this long without reads; 0 never does. */
  private final long limitNanos;

  private final Runnable onSilent;

  /** Non-null while a check is scheduled. */
  private Scheduler.Cancellable check;

  /** When the connection last read bytes, on the clock's ticker. */
  private long lastReadNanos;

  ReaderIdleWatch(Channel channel, ServerClock clock, long limitNanos, Runnable onSilent) {
    this.channel = channel;
    this.clock = clock;
    this.limitNanos = limitNanos;
    this.onSilent = onSilent;
  }

  /** The connection is active: quiet time counts from now. */
  void start() {
    lastReadNanos = clock.nanoTime();
    if (limitNanos > 0) {
      check = clock.schedule(channel, this::checkNow, limitNanos);
    }
  }

  /** The connection read something (a partial frame too). */
  void readSomething() {
    lastReadNanos = clock.nanoTime();
  }

  /** The connection closed: no check runs any more. */
  void stop() {
    if (check != null) {
      check.cancel();
      check = null;
    }
  }

  private void checkNow() {
    check = null;
    long quiet = clock.nanoTime() - lastReadNanos;
    if (quiet < limitNanos) {
      check = clock.schedule(channel, this::checkNow, limitNanos - quiet);
      return;
    }
    onSilent.run();
  }
}
