package dev.tether.client;

import dev.tether.internal.AgeJitter;
import dev.tether.spi.Scheduler;
import io.netty.channel.Channel;

/**
 * The rules of a connection's lifetime that a {@link ProtocolConnection} takes from the runtime, as
 * {@link ConnectionWatch} applies them to Tether's: closing it once it has had no call for its idle
 * time (extra connections after {@code tether.connection.extraIdleClose}), and handing it to its
 * supervisor for a replacement at the client's maximum connection age. Liveness is the protocol's
 * own (its pings). Confined to the connection's event loop.
 */
final class ProtocolLifetime implements IdleCloser.Owner {
  private final ProtocolConnection connection;
  private final ConnectionHost host;

  /** Non-null once started, when the connection has an idle time. */
  private IdleCloser idle;

  /** Non-null while the age timer runs. */
  private Scheduler.Cancellable ageTimer;

  ProtocolLifetime(ProtocolConnection connection, ConnectionHost host) {
    this.connection = connection;
    this.host = host;
  }

  /** The connection is ready: its idle clock and its age start. */
  void start(Channel channel) {
    Scheduler loop = (task, delayNanos) -> host.scheduleOn(channel.eventLoop(), task, delayNanos);
    long idleNanos = host.idleCloseNanos(connection);
    if (idleNanos > 0) {
      idle = new IdleCloser(idleNanos, host.ticker(), loop, this);
      idle.onIdle();
    }
    long maxAgeNanos = host.config().connections().maxAge().toNanos();
    if (maxAgeNanos > 0) {
      ageTimer = loop.schedule(this::onMaxAge, AgeJitter.draw(maxAgeNanos, host.random()));
    }
  }

  /** A call went out on the connection. */
  void onBusy() {
    if (idle != null) {
      idle.onBusy(true);
    }
  }

  /** The connection carries no call from now on. */
  void onIdle() {
    if (idle != null) {
      idle.onIdle();
    }
  }

  @Override
  public boolean closeIdle(String reason) {
    return connection.closeIdle(reason);
  }

  private void onMaxAge() {
    ageTimer = null;
    host.onConnectionAged(connection, "the client's max connection age was reached");
  }

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
