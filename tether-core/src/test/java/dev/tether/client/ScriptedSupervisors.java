package dev.tether.client;

import dev.tether.Endpoint;
import dev.tether.internal.SerialExecutor;
import dev.tether.spi.Scheduler;
import dev.tether.testing.ManualClock;
import dev.tether.transport.Transport;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Connection supervisors over {@link ScriptedChannel}s on a fake clock, for unit tests of what
 * follows supervisors (node groups): each connection a supervisor opens is recorded, and the test
 * says whether it connects or fails. Public so the cluster package's tests can use it.
 */
public final class ScriptedSupervisors implements SupervisorHost {
  private final SerialExecutor control;
  private final ManualClock clock;
  private final List<ScriptedChannel> opened = new ArrayList<>();
  private final Random random = new Random(7);
  private final dev.tether.internal.EventBus events;

  /** How many extra connections a key opens under load; none unless a test allows them. */
  private int maxExtra;

  /** Supervisors whose events reach {@code listeners} (none: nowhere), on {@code clock}'s time. */
  public ScriptedSupervisors(
      SerialExecutor control, ManualClock clock, dev.tether.observe.TetherListener... listeners) {
    this.control = control;
    this.clock = clock;
    this.events =
        new dev.tether.internal.EventBus(List.of(listeners), clock, "scripted-supervisor-events");
  }

  /** Keys whose supervisor is made from now on open up to {@code n} extra connections. */
  public ScriptedSupervisors allowingExtraConnections(int n) {
    maxExtra = n;
    return this;
  }

  /** The supervisor of the connection to {@code candidate}, with the runtime's default backoff. */
  public ConnectionSupervisor supervisor(Candidate candidate, String connectionId) {
    return new ConnectionSupervisor(
        this, candidate.key(connectionId), candidate, dev.tether.internal.Backoff.standard());
  }

  private static final Transport TRANSPORT = new dev.tether.transport.LocalTransport();

  /** A candidate for tcp 127.0.0.1:{@code port}; nothing is ever dialled. */
  public static Candidate candidate(int port) {
    return new Candidate(
        new Endpoint("tcp", "127.0.0.1", port, null, false),
        TRANSPORT,
        new InetSocketAddress("127.0.0.1", port),
        null,
        Duration.ofSeconds(1));
  }

  /** Every connection opened so far, oldest first. */
  public List<ScriptedChannel> opened() {
    return opened;
  }

  /** The newest connection opened to {@code port}. */
  public ScriptedChannel lastTo(int port) {
    for (int i = opened.size() - 1; i >= 0; i--) {
      if (((InetSocketAddress) opened.get(i).remoteAddress()).getPort() == port) {
        return opened.get(i);
      }
    }
    throw new AssertionError("no connection to port " + port + " was opened");
  }

  /**
   * Tells the supervisor of {@code c} that its connection closed: broken ({@code unexpectedly}) or
   * on purpose.
   */
  public static void closed(
      ConnectionSupervisor supervisor, ScriptedChannel c, boolean unexpectedly) {
    c.close();
    supervisor.onConnectionClosed(c, unexpectedly, new java.io.IOException("connection reset"));
  }

  @Override
  public SerialExecutor control() {
    return control;
  }

  @Override
  public Scheduler.Cancellable scheduleOnControl(Runnable task, long delayNanos) {
    return clock.schedule(() -> control.execute(task), delayNanos);
  }

  @Override
  public RequestChannel newConnection(Candidate candidate, ConnectionKey key) {
    ScriptedChannel c = new ScriptedChannel(key);
    opened.add(c);
    return c;
  }

  @Override
  public Random random() {
    return random;
  }

  @Override
  public dev.tether.spi.Ticker ticker() {
    return clock;
  }

  @Override
  public dev.tether.internal.EventBus events() {
    return events;
  }

  @Override
  public boolean isClosing() {
    return false;
  }

  @Override
  public int maxExtraConnections() {
    return maxExtra;
  }
}
