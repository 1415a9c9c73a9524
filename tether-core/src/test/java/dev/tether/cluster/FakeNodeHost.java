package dev.tether.cluster;

import dev.tether.client.Candidate;
import dev.tether.client.ConnectionSupervisor;
import dev.tether.client.EjectionPolicy;
import dev.tether.client.NodeHost;
import dev.tether.client.ProxySettings;
import dev.tether.client.RequestChannel;
import dev.tether.client.ScriptedSupervisors;
import dev.tether.internal.Backoff;
import dev.tether.internal.EventBus;
import dev.tether.internal.SerialExecutor;
import dev.tether.observe.TetherEvent;
import dev.tether.spi.Scheduler;
import dev.tether.spi.Ticker;
import dev.tether.testing.ManualClock;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A runtime as a node group sees it, for unit tests on the fake clock: endpoints select to scripted
 * candidates, each key gets one supervisor over scripted connections, and events are recorded (each
 * with its kind, endpoint and detail); some ports may be made incompatible.
 */
final class FakeNodeHost implements NodeHost {
  final ManualClock clock = new ManualClock(0);
  final SerialExecutor control = new SerialExecutor();
  final ScriptedSupervisors connections = new ScriptedSupervisors(control, clock);
  final List<TetherEvent> events = new CopyOnWriteArrayList<>();
  private final EventBus bus = new EventBus(List.of(events::add), clock, "fake-node-host-events");
  private final Map<Integer, ConnectionSupervisor> supervisors = new ConcurrentHashMap<>();
  private final Random random = new Random(11);
  private final EjectionPolicy ejection;

  /** Ports whose servers run a version outside every proxy's range. */
  final Set<Integer> incompatiblePorts = ConcurrentHashMap.newKeySet();

  FakeNodeHost(EjectionPolicy ejection) {
    this.ejection = ejection;
  }

  /**
   * Ejects after 3 faults in a row for 10 s (doubling to 40 s), never more than half of a group.
   */
  FakeNodeHost() {
    this(
        new EjectionPolicy(
            3, 0.0, Integer.MAX_VALUE, Duration.ofSeconds(10), Duration.ofSeconds(40), 0.5));
  }

  ConnectionSupervisor supervisorOf(int port) {
    return supervisors.get(port);
  }

  @Override
  public List<Candidate> select(ProxySettings settings) {
    List<Candidate> out = new ArrayList<>();
    settings.endpoints().forEach(e -> out.add(ScriptedSupervisors.candidate(e.port())));
    return out;
  }

  @Override
  public ConnectionSupervisor supervisor(Candidate candidate, String connectionId) {
    return supervisors.computeIfAbsent(
        candidate.endpoint().port(), p -> connections.supervisor(candidate, connectionId));
  }

  @Override
  public boolean isCompatible(ProxySettings settings, RequestChannel c) {
    return !incompatiblePorts.contains(((InetSocketAddress) c.remoteAddress()).getPort());
  }

  @Override
  public Backoff nodeBackoff() {
    return new Backoff(Duration.ofSeconds(1), 2.0, Duration.ofSeconds(8), 0);
  }

  @Override
  public EjectionPolicy ejection() {
    return ejection;
  }

  @Override
  public SerialExecutor control() {
    return control;
  }

  @Override
  public Scheduler.Cancellable scheduleOnControl(Runnable task, long delayNanos) {
    return connections.scheduleOnControl(task, delayNanos);
  }

  @Override
  public EventBus events() {
    return bus;
  }

  @Override
  public Ticker ticker() {
    return clock;
  }

  @Override
  public Random random() {
    return random;
  }

  @Override
  public boolean isClosing() {
    return false;
  }
}
