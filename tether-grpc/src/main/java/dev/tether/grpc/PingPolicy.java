package dev.tether.grpc;

import dev.tether.spi.Ticker;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * gRPC's keepalive policy on one server connection (gRFC A8): a client may ping once per permitted
 * interval, and, unless pings without calls are permitted, only once per two hours while it has no
 * call running. A ping sooner is a strike; the third strike is one too many (the connection then
 * ends with GOAWAY ENHANCE_YOUR_CALM "too_many_pings"). Strikes clear whenever the server sends
 * headers or data, since clients (grpc-java's flow-control probes) ping in answer to data. State on
 * the connection's event loop.
 */
final class PingPolicy {
  /** Strikes a client may have; the next one ends its connection (grpc-java's count). */
  static final int MAX_STRIKES = 2;

  /** The interval for a client with no call running when that is not permitted (grpc-java's). */
  static final long IDLE_PERMIT_NANOS = TimeUnit.HOURS.toNanos(2);

  /**
   * What clients may do: ping at most once per {@code time}; {@code withoutCalls}: at that rate
   * also when no call runs.
   */
  record Permit(Duration time, boolean withoutCalls) {
    /** grpc-java's server default: once per five minutes, and only while calls run. */
    static final Permit DEFAULT = new Permit(Duration.ofMinutes(5), false);

    Permit {
      if (time.isNegative()) {
        throw new IllegalArgumentException("permitKeepAliveTime must not be negative: " + time);
      }
    }
  }

  private final Permit permit;
  private final Ticker ticker;

  /** When the connection opened: the last valid ping counts from here until one comes. */
  private final long epoch;

  private long lastValidPing;
  private int strikes;

  PingPolicy(Permit permit, Ticker ticker) {
    this.permit = permit;
    this.ticker = ticker;
    this.epoch = ticker.nanoTime();
    this.lastValidPing = epoch;
  }

  /** A PING arrived; true when it is one too many. */
  boolean pingReceived(boolean callsRunning) {
    long now = ticker.nanoTime();
    long interval = permit.time().toNanos();
    if (!callsRunning && !permit.withoutCalls()) {
      interval = Math.max(interval, IDLE_PERMIT_NANOS);
    }
    if (now - lastValidPing >= interval) {
      lastValidPing = now;
      return false;
    }
    strikes++;
    return strikes > MAX_STRIKES;
  }

  /** The server sent headers or data: the client's pings start over. */
  void serverSent() {
    lastValidPing = epoch;
    strikes = 0;
  }
}
