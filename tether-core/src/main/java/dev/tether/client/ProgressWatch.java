package dev.tether.client;

import dev.tether.internal.Ticker;
import io.netty.channel.EventLoop;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The transport timeout of one connection (an endpoint's {@code -t}): while requests are
 * outstanding, reading nothing for that long means the peer is gone. Confined to the
 * connection's event loop; time comes from the injected ticker.
 */
final class ProgressWatch {
  /** What the watch asks of its connection. */
  interface Owner {
    boolean hasOutstandingRequests();

    void onNoProgress(long silentNanos);
  }

  private final long timeoutNanos;
  private final Ticker ticker;
  private final EventLoop loop;
  private final Owner owner;
  private long lastProgressNanos;
  /** Non-null only while a check is scheduled. */
  private ScheduledFuture<?> check;

  ProgressWatch(Duration timeout, Ticker ticker, EventLoop loop, Owner owner) {
    this.timeoutNanos = timeout.toNanos();
    this.ticker = ticker;
    this.loop = loop;
    this.owner = owner;
  }

  /** Bytes arrived: the peer is alive. */
  void onRead() {
    lastProgressNanos = ticker.nanoTime();
  }

  /** A request went out; if the connection was idle, the silence is measured from now. */
  void onRequestSent() {
    if (check == null) {
      lastProgressNanos = ticker.nanoTime();
      schedule(timeoutNanos);
    }
  }

  void stop() {
    if (check != null) {
      check.cancel(false);
      check = null;
    }
  }

  /** The check itself; returns the delay to the next one, or -1 when none is needed. */
  long runOnce(long nowNanos) {
    if (!owner.hasOutstandingRequests()) {
      return -1;
    }
    long silent = nowNanos - lastProgressNanos;
    if (silent >= timeoutNanos) {
      owner.onNoProgress(silent);
      return -1;
    }
    return timeoutNanos - silent;
  }

  private void schedule(long delayNanos) {
    check = loop.schedule(this::check, delayNanos, TimeUnit.NANOSECONDS);
  }

  private void check() {
    check = null;
    long next = runOnce(ticker.nanoTime());
    if (next >= 0) {
      schedule(next);
    }
  }
}
