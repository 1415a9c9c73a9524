package dev.tether.grpc.client;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How the connections of one gRPC protocol prove their servers alive (gRFC A8): a PING after {@code
 * time} without reads while calls are open (never without calls), dead when its answer takes longer
 * than {@code timeout}. A server that answers GOAWAY ENHANCE_YOUR_CALM "too_many_pings" doubles the
 * time for every later connection of the protocol. Thread-safe.
 */
final class KeepalivePolicy {
  static final KeepalivePolicy OFF = new KeepalivePolicy(Duration.ZERO, Duration.ZERO);

  private final AtomicLong timeNanos;
  private final long timeoutNanos;

  KeepalivePolicy(Duration time, Duration timeout) {
    this.timeNanos = new AtomicLong(time.toNanos());
    this.timeoutNanos = timeout.toNanos();
  }

  boolean isOn() {
    return timeNanos.get() > 0;
  }

  /** The quiet time after which a connection with calls is pinged, now. */
  long timeNanos() {
    return timeNanos.get();
  }

  long timeoutNanos() {
    return timeoutNanos;
  }

  /** The server found the pings too frequent: twice the time from now on. */
  void onTooManyPings() {
    timeNanos.updateAndGet(t -> t > Long.MAX_VALUE / 2 ? t : t * 2);
  }

  @Override
  public String toString() {
    return isOn()
        ? "keepalive " + Duration.ofNanos(timeNanos()).toMillis() + " ms"
        : "no keepalive";
  }
}
