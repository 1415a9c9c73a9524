package dev.tether.client;

import dev.tether.internal.AgeJitter;
import dev.tether.spi.Scheduler;
import io.netty.channel.Channel;

/**
 * The rules of a connection's lifetime the runtime sets, whatever protocol it speaks: closing it
 * once it has had no call for its idle time (extra connections after {@code
 * tether.connection.extraIdleClose}), and handing it to its supervisor for a replacement at the
 * client's maximum connection age. Liveness is not here: Tether's heartbeats are {@link
 * ConnectionWatch}'s, another protocol's pings its own. Confined to the connection's event loop.
 */
final class ConnectionLifetime {
  private final RequestChannel connection;
  private final ConnectionHost host;
  private final IdleCloser.Owner closer;

  /** Non-null once started, when the connection has an idle time. */
  private IdleCloser idle;

  /** Non-null while the age timer runs. */
  private Scheduler.Cancellable ageTimer;

  /** {@code closer} closes the connection once idle, or says it is busy after all. */
  ConnectionLifetime(RequestChannel connection, ConnectionHost host, IdleCloser.Owner closer) {
    this.connection = connection;
    this.host = host;
    this.closer = closer;
  }

  /**
   * The connection is ready: its idle clock and its age start. {@code idleNanos} 0 keeps it open
   * however long it idles.
   */
  void start(Channel channel, long idleNanos) {
    Scheduler loop = (task, delayNanos) -> host.scheduleOn(channel.eventLoop(), task, delayNanos);
    if (idleNanos > 0) {
      idle = new IdleCloser(idleNanos, host.ticker(), loop, closer);
      idle.onIdle();
    }
    long maxAgeNanos = host.config().connections().maxAge().toNanos();
    if (maxAgeNanos > 0) {
      ageTimer = loop.schedule(this::onMaxAge, AgeJitter.draw(maxAgeNanos, host.random()));
    }
  }

  /** A call went out on the connection; {@code twoway} when it waits for an answer. */
  void onBusy(boolean twoway) {
    if (idle != null) {
      idle.onBusy(twoway);
    }
  }

  /** The connection carries no call from now on: the idle period starts. */
  void onIdle() {
    if (idle != null) {
      idle.onIdle();
    }
  }

  /**
   * This side's max age passed: the key's supervisor replaces the connection, as for the server's
   * GOAWAY(MAX_AGE).
   */
  private void onMaxAge() {
    ageTimer = null;
    host.onConnectionAged(connection, "the client's max connection age was reached");
  }

  /** The connection closed: no timer runs again. */
  void stop() {
    if (idle != null) {
      idle.stop();
    }
    if (ageTimer != null) {
      ageTimer.cancel();
      ageTimer = null;
    }
  }
}
