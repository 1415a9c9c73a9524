package dev.tether.client;

import dev.tether.protocol.Ping;
import dev.tether.spi.Scheduler;
import io.netty.channel.Channel;

/**
 * Watches one connection from WELCOME on: whether its peer is still there (heartbeats, the
 * transport timeout: {@link LivenessMonitor}) and whether anyone still calls on it (close on idle:
 * {@link IdleCloser}). The connection reports reads, writes and calls; each rule that applies has
 * its monitor, the others cost a null check. Confined to the connection's event loop.
 */
final class ConnectionWatch implements LivenessMonitor.Owner, IdleCloser.Owner {
  private final ClientConnection connection;
  private final PendingCalls pending;

  /** Non-null once started when heartbeats or a transport timeout apply. */
  private LivenessMonitor liveness;

  /** Closing on idle and at the client's max age, as for every connection. */
  private final ConnectionLifetime lifetime;

  /** True once the current read burst's time was given to {@link #liveness}. */
  private boolean readTimed;

  /** Non-null once started: the connection's channel, for PINGs. */
  private Channel channel;

  ConnectionWatch(ClientConnection connection, PendingCalls pending) {
    this.connection = connection;
    this.pending = pending;
    this.lifetime = new ConnectionLifetime(connection, connection.host, this);
  }

  /**
   * The handshake is done: starts the rules that apply. {@code idleNanos} 0 keeps the connection
   * open however long it idles.
   */
  void start(Channel channel, LivenessMonitor.Settings rules, long idleNanos) {
    this.channel = channel;
    ConnectionHost host = connection.host;
    Scheduler loop = (task, delayNanos) -> host.scheduleOn(channel.eventLoop(), task, delayNanos);
    if (!rules.isOff()) {
      liveness = new LivenessMonitor(rules, host.ticker(), loop, this);
      liveness.start();
    }
    lifetime.start(channel, idleNanos);
  }

  @Override
  public boolean hasOutstandingRequests() {
    return !pending.isEmpty();
  }

  @Override
  public void sendPing() {
    channel.writeAndFlush(new Ping(connection.host.ticker().nanoTime()), channel.voidPromise());
  }

  @Override
  public void onPeerSilent(String reason) {
    connection.onPeerSilent(reason);
  }

  @Override
  public boolean closeIdle(String reason) {
    if (!connection.streams.isEmpty()) {
      return false; // a stream is long-lived work, not idleness
    }
    connection.closeIdle(reason);
    return true;
  }

  /**
   * A frame arrived. Timed once per read burst rather than per frame: one clock read however many
   * answers arrived, taken at the burst's first frame, before any caller hears of an answer: a read
   * timed at the end of the burst would be later than the callers, and a test's clock, know it to
   * be.
   */
  void onFrameRead() {
    if (!readTimed && liveness != null) {
      readTimed = true;
      liveness.onRead();
    }
  }

  /**
   * The read burst ended; one without a whole frame (a large one arriving) still shows the peer is
   * there.
   */
  void onReadBurstEnded() {
    onFrameRead();
    readTimed = false;
  }

  /**
   * A call's frame is in a batch; {@code firstInFlight} when no twoway call was waiting before it.
   */
  void onCallWritten(boolean twoway, boolean firstInFlight) {
    if (firstInFlight && liveness != null) {
      liveness.onBecameBusy();
    }
    lifetime.onBusy(twoway);
  }

  /** A batch of requests goes out: the server hears from this side. */
  void onWrite() {
    if (liveness != null) {
      liveness.onWrite();
    }
  }

  /** The last twoway call in flight ended: the idle period starts. */
  void onNoCallInFlight() {
    lifetime.onIdle();
  }

  /** The connection closed: no timer of either rule runs again. */
  void stop() {
    if (liveness != null) {
      liveness.stop();
    }
    lifetime.stop();
  }
}
