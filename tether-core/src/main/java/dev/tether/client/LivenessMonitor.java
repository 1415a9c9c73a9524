package dev.tether.client;

import dev.tether.internal.QuietWatch;
import dev.tether.spi.Scheduler;
import dev.tether.spi.Ticker;

/**
 * Decides whether one connection's peer is still there, from what the connection has read:
 *
 * <ul>
 *   <li>heartbeat: nothing read for {@code readerIdle} → send PING (again every readerIdle);
 *   <li>keepalive for the server: nothing written for {@code keepalive} → send PING, so that a
 *       server whose reader idle (announced in WELCOME) is shorter than the client's heartbeat
 *       still hears from a healthy idle client;
 *   <li>heartbeat: nothing read for {@code idleTimeout} → the peer is frozen or gone;
 *   <li>transport timeout ({@code -t}): requests outstanding and nothing read for that long,
 *       counted from the request that made an idle connection busy → the peer is gone.
 * </ul>
 *
 * A zero duration turns its rule off. Confined to the connection's event loop; every decision reads
 * the injected ticker, and {@link #runOnce(long)} can be driven with literal times.
 */
final class LivenessMonitor extends QuietWatch {
  /** What the monitor asks of its connection. */
  interface Owner {
    boolean hasOutstandingRequests();

    void sendPing();

    void onPeerSilent(String reason);
  }

  /**
   * @param readerIdleNanos ping after this much silence; 0 = never
   * @param idleTimeoutNanos dead after this much silence; 0 = never
   * @param transportTimeoutNanos dead after this much silence with requests outstanding; 0 = never
   * @param keepaliveNanos ping after writing nothing for this long; 0 = never
   */
  record Settings(
      long readerIdleNanos,
      long idleTimeoutNanos,
      long transportTimeoutNanos,
      long keepaliveNanos) {
    Settings(long readerIdleNanos, long idleTimeoutNanos, long transportTimeoutNanos) {
      this(readerIdleNanos, idleTimeoutNanos, transportTimeoutNanos, 0);
    }

    boolean isOff() {
      return readerIdleNanos == 0
          && idleTimeoutNanos == 0
          && transportTimeoutNanos == 0
          && keepaliveNanos == 0;
    }
  }

  private final Settings settings;
  private final Owner owner;
  private long lastReadNanos;
  private long lastPingNanos;

  /** When the connection last wrote a request batch or a ping. */
  private long lastWriteNanos;

  /** When the connection last went from no outstanding requests to some. */
  private long busySinceNanos;

  /**
   * @param loop runs checks on the connection's event loop, keeping time with the runtime's
   *     scheduler
   */
  LivenessMonitor(Settings settings, Ticker ticker, Scheduler loop, Owner owner) {
    super(ticker, loop);
    this.settings = settings;
    this.owner = owner;
    long now = ticker.nanoTime();
    this.lastReadNanos = now;
    this.lastPingNanos = now;
    this.lastWriteNanos = now;
    this.busySinceNanos = now;
  }

  /** Starts the checks; the connection counts as just heard from. */
  void start() {
    long now = ticker.nanoTime();
    armFrom(now, runOnce(now));
  }

  void onRead() {
    lastReadNanos = ticker.nanoTime();
  }

  /** Call once per written batch of requests (not per request): the server heard from us. */
  void onWrite() {
    if (settings.keepaliveNanos() > 0) {
      lastWriteNanos = ticker.nanoTime();
    }
  }

  /** Call when a request goes out while none was outstanding. */
  void onBecameBusy() {
    busySinceNanos = ticker.nanoTime();
    if (isDisarmed()) {
      armFrom(busySinceNanos, runOnce(busySinceNanos));
    }
  }

  @Override
  protected long check(long nowNanos) {
    return runOnce(nowNanos);
  }

  /** Applies the rules at {@code now}; returns the delay until the next check, or -1 for none. */
  long runOnce(long nowNanos) {
    long silent = nowNanos - lastReadNanos;
    if (settings.transportTimeoutNanos() > 0 && owner.hasOutstandingRequests()) {
      long busySilent = nowNanos - Math.max(lastReadNanos, busySinceNanos);
      if (busySilent >= settings.transportTimeoutNanos()) {
        owner.onPeerSilent(
            "transport timeout: nothing read for "
                + busySilent / 1_000_000
                + " ms with requests outstanding");
        return -1;
      }
    }
    if (settings.idleTimeoutNanos() > 0 && silent >= settings.idleTimeoutNanos()) {
      owner.onPeerSilent("heartbeat: nothing read for " + silent / 1_000_000 + " ms");
      return -1;
    }
    boolean checkPeer =
        settings.readerIdleNanos() > 0
            && silent >= settings.readerIdleNanos()
            && nowNanos - lastPingNanos >= settings.readerIdleNanos();
    boolean keepServer =
        settings.keepaliveNanos() > 0 && nowNanos - lastWriteNanos >= settings.keepaliveNanos();
    if (checkPeer || keepServer) {
      lastPingNanos = nowNanos;
      lastWriteNanos = nowNanos;
      owner.sendPing();
    }
    return nextCheckDelay(nowNanos);
  }

  private long nextCheckDelay(long nowNanos) {
    long next = Long.MAX_VALUE;
    if (settings.readerIdleNanos() > 0) {
      next = Math.min(next, Math.max(lastReadNanos, lastPingNanos) + settings.readerIdleNanos());
    }
    if (settings.idleTimeoutNanos() > 0) {
      next = Math.min(next, lastReadNanos + settings.idleTimeoutNanos());
    }
    if (settings.keepaliveNanos() > 0) {
      next = Math.min(next, lastWriteNanos + settings.keepaliveNanos());
    }
    if (settings.transportTimeoutNanos() > 0 && owner.hasOutstandingRequests()) {
      next =
          Math.min(
              next, Math.max(lastReadNanos, busySinceNanos) + settings.transportTimeoutNanos());
    }
    return next == Long.MAX_VALUE ? -1 : Math.max(0, next - nowNanos);
  }
}
