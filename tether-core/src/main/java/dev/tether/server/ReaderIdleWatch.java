package dev.tether.server;

import dev.tether.internal.QuietWatch;
import io.netty.channel.Channel;

/**
 * Reader-idle enforcement for one server connection: a client that has sent nothing for the
 * server's reader idle is gone (a live one would have pinged), and {@code onSilent} runs once to
 * end it. Any bytes count as life; the connection reports them once per read burst. One check is
 * scheduled at a time, due when the quiet time could first reach the limit. Lives on the
 * connection's loop, as every timer task of {@link ServerClock} does.
 */
final class ReaderIdleWatch extends QuietWatch {
  /** Close after this long without reads; 0 never does. */
  private final long limitNanos;

  private final Runnable onSilent;

  /** When the connection last read bytes, on the clock's ticker. */
  private long lastReadNanos;

  ReaderIdleWatch(Channel channel, ServerClock clock, long limitNanos, Runnable onSilent) {
    super(clock.ticker(), (task, delayNanos) -> clock.schedule(channel, task, delayNanos));
    this.limitNanos = limitNanos;
    this.onSilent = onSilent;
  }

  /** The connection is active: quiet time counts from now. */
  void start() {
    lastReadNanos = ticker.nanoTime();
    if (limitNanos > 0) {
      arm(limitNanos);
    }
  }

  /** The connection read something (a partial frame too). */
  void readSomething() {
    lastReadNanos = ticker.nanoTime();
  }

  @Override
  protected long check(long nowNanos) {
    long quiet = nowNanos - lastReadNanos;
    if (quiet < limitNanos) {
      return limitNanos - quiet;
    }
    onSilent.run();
    return -1;
  }
}
