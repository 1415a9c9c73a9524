package dev.tether.client;

import dev.tether.internal.EventBus;
import dev.tether.internal.OwnedTimer;
import dev.tether.internal.SerialExecutor;
import dev.tether.spi.Scheduler;
import dev.tether.spi.Ticker;
import java.util.Random;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;

/**
 * The connection side of a runtime: it owns the {@link ConnectionPool}, makes connections for the
 * supervisors, and takes what a connection reports (closed, aged, saturated, a new cluster view) to
 * its key's supervisor or the topology views. Connections and supervisors see it only as their
 * {@link ConnectionHost} and {@link SupervisorHost}. Thread-safe: it holds no state of its own
 * beyond what it was given.
 */
final class ConnectionHub implements ConnectionHost, SupervisorHost {
  private final ClientConfig config;
  private final Ticker ticker;
  private final Scheduler scheduler;
  private final Random random;
  private final EventBus events;
  private final SerialExecutor control;
  private final TopologyViews topologies;
  private final String clientId;

  /** True once the runtime closes; the runtime's own flag. */
  private final BooleanSupplier closing;

  private final ConnectionPool pool;

  /**
   * @param scheduler keeps time for every timer of the runtime
   * @param closing tells whether the runtime closes
   */
  ConnectionHub(
      ClientConfig config,
      Ticker ticker,
      Scheduler scheduler,
      Random random,
      EventBus events,
      SerialExecutor control,
      TopologyViews topologies,
      String clientId,
      BooleanSupplier closing) {
    this.config = config;
    this.ticker = ticker;
    this.scheduler = scheduler;
    this.random = random;
    this.events = events;
    this.control = control;
    this.topologies = topologies;
    this.clientId = clientId;
    this.closing = closing;
    this.pool = new ConnectionPool(this, config.reconnect(), ticker);
  }

  ConnectionPool pool() {
    return pool;
  }

  // ---- the runtime's settings, clock and events ----

  @Override
  public ClientConfig config() {
    return config;
  }

  @Override
  public Ticker ticker() {
    return ticker;
  }

  @Override
  public Random random() {
    return random;
  }

  @Override
  public EventBus events() {
    return events;
  }

  @Override
  public SerialExecutor control() {
    return control;
  }

  @Override
  public String clientId() {
    return clientId;
  }

  @Override
  public int maxFrameSize() {
    return config.maxFrameSize();
  }

  @Override
  public boolean isClosing() {
    return closing.getAsBoolean();
  }

  @Override
  public Scheduler.Cancellable scheduleOn(Executor owner, Runnable task, long delayNanos) {
    return OwnedTimer.schedule(scheduler, owner, task, delayNanos);
  }

  @Override
  public Scheduler.Cancellable scheduleOnControl(Runnable task, long delayNanos) {
    return OwnedTimer.schedule(scheduler, control, task, delayNanos);
  }

  // ---- what supervisors ask ----

  @Override
  public RequestChannel newConnection(Candidate candidate, ConnectionKey key) {
    if (candidate.protocol() != null) {
      return new ProtocolConnection(this, key, candidate);
    }
    return candidate.transport().isDatagram()
        ? new DatagramConnection(this, key, candidate)
        : new ClientConnection(this, key, candidate);
  }

  @Override
  public int maxExtraConnections() {
    return config.connections().maxExtra();
  }

  // ---- what connections report (on their loops) ----

  @Override
  public boolean isSupervisorsOwn(RequestChannel c) {
    return pool.isSupervisorsOwn(c);
  }

  /**
   * Extras close after {@code tether.connection.extraIdleClose}; a node group's connections stay,
   * since the group supervises them; others follow {@code tether.connection.idleClose}.
   */
  @Override
  public long idleCloseNanos(RequestChannel c) {
    ClientConfig.ConnectionUse use = config.connections();
    if (c.isExtra()) {
      return use.extraIdleClose().toNanos();
    }
    boolean supervised =
        pool.supervisorOf(c.key()).map(ConnectionSupervisor::keepsConnected).orElse(false);
    return supervised ? 0 : use.idleClose().toNanos();
  }

  /** Only a stream connection has slots to run out of. */
  @Override
  public void onSaturated(RequestChannel c) {
    if (c instanceof Lane lane) {
      pool.supervisorOf(c.key()).ifPresent(s -> s.onSaturated(lane));
    }
  }

  /** Its supervisor decides what follows; a break while the runtime closes is no break. */
  @Override
  public void onConnectionClosed(RequestChannel c, boolean unexpectedly, Throwable cause) {
    pool.supervisorOf(c.key())
        .ifPresent(s -> s.onConnectionClosed(c, unexpectedly && !isClosing(), cause));
  }

  /** Its supervisor replaces it. */
  @Override
  public void onConnectionAged(RequestChannel c, String why) {
    pool.supervisorOf(c.key()).ifPresent(s -> s.onAged(c, why));
  }

  /**
   * The views learned from that connection take the new one at once, on the control executor, so
   * the next connection choice follows the new order without waiting for a reconnect.
   */
  @Override
  public void onTopologyAnnounced(RequestChannel c) {
    topologies.relearn(c);
  }
}
