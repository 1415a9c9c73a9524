package dev.tether.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tether.Endpoint;
import dev.tether.InvocationMode;
import dev.tether.NoAvailableNodeException;
import dev.tether.client.ConnectionSupervisor;
import dev.tether.client.ProxySettings;
import dev.tether.client.RequestChannel;
import dev.tether.client.ScriptedChannel;
import dev.tether.client.ScriptedSupervisors;
import dev.tether.client.VersionRange;
import dev.tether.observe.NodeStatus;
import dev.tether.observe.TetherEvent;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A node group over scripted connections on the fake clock: node health follows each node's
 * supervisor, calls go only to live nodes, and a call with no live node fails or waits within its
 * deadline; nodes whose calls keep failing are ejected and probed. No sockets, no sleeping.
 */
class NodeGroupTest {
  private static final Duration ONE_SECOND_BACKOFF = Duration.ofSeconds(1);

  private final FakeNodeHost host = new FakeNodeHost();
  private final ProxySettings settings =
      ProxySettings.of(
          "svc",
          InvocationMode.TWOWAY,
          false,
          Endpoint.parseList("tcp -h 127.0.0.1 -p 7001:tcp -h 127.0.0.1 -p 7002"));
  private final NodeGroup group = new NodeGroup(host, settings, new RoundRobinSelector());

  private static int port(RequestChannel c) {
    return ((InetSocketAddress) c.remoteAddress()).getPort();
  }

  private ScriptedChannel opened(int port) {
    return host.connections.lastTo(port);
  }

  private String health(int port) {
    return group.nodeStatus().stream()
        .filter(n -> n.endpoint().endsWith("-p " + port))
        .map(NodeStatus::health)
        .findFirst()
        .orElseThrow();
  }

  /** Connects both nodes, so both are ALIVE. */
  private void bothConnected() {
    group.connectAny(settings);
    opened(7001).connects(null);
    opened(7002).connects(null);
  }

  @Test
  void callGoesToANodeOnceItsConnectionIsUp() throws Exception {
    CompletableFuture<RequestChannel> routed = group.route(settings, Set.of(), 0);
    assertThat(routed).isNotDone();

    ScriptedChannel first = host.connections.opened().get(0);
    first.connects(null);

    assertThat(routed.get(1, TimeUnit.SECONDS)).isSameAs(first);
    assertThat(health(port(first))).isEqualTo("ALIVE");
  }

  @Test
  void nodeWhoseConnectFailsIsMarkedDeadAndTheCallGoesToAnother() throws Exception {
    CompletableFuture<RequestChannel> routed = group.route(settings, Set.of(), 0);
    ScriptedChannel first = host.connections.opened().get(0);
    int other = port(first) == 7001 ? 7002 : 7001;

    first.failsToConnect(new ConnectException("Connection refused"));
    opened(other).connects(null);

    assertThat(port(routed.get(1, TimeUnit.SECONDS))).isEqualTo(other);
    assertThat(health(port(first))).isEqualTo("DEAD");
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> host.events.stream().anyMatch(e -> e.kind() == TetherEvent.Kind.NODE_DEAD));
  }

  @Test
  void withEveryNodeDownACallFailsAtOnceWithNoAvailableNode() {
    group.connectAny(settings);
    opened(7001).failsToConnect(new ConnectException("Connection refused"));
    opened(7002).failsToConnect(new ConnectException("Connection refused"));

    CompletableFuture<RequestChannel> routed = group.route(settings, Set.of(), 0);

    assertThat(routed).isCompletedExceptionally();
    assertThatThrownBy(routed::get).hasCauseInstanceOf(NoAvailableNodeException.class);
  }

  @Test
  void callThatWaitsForReadyFailsWhenItsDeadlinePassesOnTheClock() {
    group.connectAny(settings);
    opened(7001).failsToConnect(new ConnectException("Connection refused"));
    opened(7002).failsToConnect(new ConnectException("Connection refused"));
    ProxySettings waiting = settings.with(c -> c.waitForReady(true));

    CompletableFuture<RequestChannel> routed =
        group.route(waiting, Set.of(), host.clock.nanoTime() + Duration.ofMillis(500).toNanos());
    host.clock.forward(Duration.ofMillis(499));
    assertThat(routed).isNotDone();

    host.clock.forward(Duration.ofMillis(1));
    assertThatThrownBy(routed::get)
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(NoAvailableNodeException.class)
        .hasMessageContaining("before the deadline");
  }

  @Test
  void callThatWaitsForReadyGoesToTheFirstNodeItsSupervisorBringsBack() throws Exception {
    group.connectAny(settings);
    opened(7001).failsToConnect(new ConnectException("Connection refused"));
    opened(7002).failsToConnect(new ConnectException("Connection refused"));
    ProxySettings waiting = settings.with(c -> c.waitForReady(true));
    CompletableFuture<RequestChannel> routed =
        group.route(waiting, Set.of(), host.clock.nanoTime() + Duration.ofSeconds(5).toNanos());
    int before = host.connections.opened().size();

    host.clock.forward(ONE_SECOND_BACKOFF);
    assertThat(host.connections.opened()).hasSize(before + 2);
    opened(7002).connects(null);

    assertThat(port(routed.get(1, TimeUnit.SECONDS))).isEqualTo(7002);
    assertThat(health(7002)).isEqualTo("ALIVE");
  }

  @Test
  void nodeWhoseConnectionIsDiallingAgainGetsNoCallWhileAnotherIsReady() throws Exception {
    bothConnected();
    ScriptedSupervisors.closed(host.supervisorOf(7001), opened(7001), true);
    assertThat(host.supervisorOf(7001).state()).isEqualTo(ConnectionSupervisor.State.CONNECTING);

    for (int i = 0; i < 4; i++) {
      assertThat(port(group.route(settings, Set.of(), 0).get(1, TimeUnit.SECONDS))).isEqualTo(7002);
    }

    opened(7001).connects(null);
    Set<Integer> ports = new HashSet<>();
    for (int i = 0; i < 2; i++) {
      ports.add(port(group.route(settings, Set.of(), 0).get(1, TimeUnit.SECONDS)));
    }
    assertThat(ports).containsExactlyInAnyOrder(7001, 7002);
  }

  /**
   * An alive node that redials keeps its health until the dial ends, so only its connection's state
   * says it cannot take a call: counted as ready, it would be neither picked nor waited for.
   */
  @Test
  void callThatDoesNotWaitForReadyWaitsForAliveNodesThatAreDiallingAgainInsteadOfFailing()
      throws Exception {
    bothConnected();
    ScriptedSupervisors.closed(host.supervisorOf(7001), opened(7001), true);
    ScriptedSupervisors.closed(host.supervisorOf(7002), opened(7002), true);
    assertThat(health(7001)).isEqualTo("ALIVE");
    assertThat(health(7002)).isEqualTo("ALIVE");
    assertThat(host.supervisorOf(7002).state()).isEqualTo(ConnectionSupervisor.State.CONNECTING);

    CompletableFuture<RequestChannel> routed = group.route(settings, Set.of(), 0);
    assertThat(routed).as("a call with only redialling nodes").isNotDone();

    opened(7002).connects(null);
    assertThat(port(routed.get(1, TimeUnit.SECONDS))).isEqualTo(7002);
  }

  @Test
  void newGroupDialsEveryNodeAndItsFirstCallTakesTheFirstNodeReady() throws Exception {
    CompletableFuture<RequestChannel> routed = group.route(settings, Set.of(), 0);
    assertThat(host.connections.opened()).hasSize(2);

    opened(7002).connects(null);

    assertThat(port(routed.get(1, TimeUnit.SECONDS))).isEqualTo(7002);
  }

  @Test
  void callThatDoesNotWaitForReadyFailsOnceNoNodeIsLeftConnecting() {
    CompletableFuture<RequestChannel> routed = group.route(settings, Set.of(), 0);
    opened(7001).failsToConnect(new ConnectException("Connection refused"));
    assertThat(routed).isNotDone();

    opened(7002).failsToConnect(new ConnectException("Connection refused"));

    assertThatThrownBy(routed::get)
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(NoAvailableNodeException.class)
        .hasMessageContaining("could be reached");
  }

  @Test
  void statusSaysWhyANodeIsOutWithTheFiguresThatDecided() {
    bothConnected();
    ScriptedChannel sick = opened(7001);
    for (int i = 0; i < 3; i++) {
      group.onCallStarted(sick);
      group.onCallFinished(sick, 1_000_000, true);
    }

    NodeStatus out =
        group.nodeStatus().stream().filter(n -> n.endpoint().endsWith("-p 7001")).findFirst().get();
    assertThat(out.health()).isEqualTo("EJECTED");
    assertThat(out.why()).startsWith("ejected for 10000 ms: 3 failed call(s) in a row");
    assertThat(group.nodeStatus().get(1).why()).isEqualTo("connected");
  }

  @Test
  void nodeStatusAnswersWhileTheControlExecutorIsBusyElsewhere() throws Exception {
    bothConnected();
    CountDownLatch holding = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Thread busy =
        new Thread(
            () ->
                host.control.execute(
                    () -> {
                      holding.countDown();
                      try {
                        release.await(5, TimeUnit.SECONDS);
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                      }
                    }));
    busy.start();
    assertThat(holding.await(5, TimeUnit.SECONDS)).isTrue();
    try {
      assertThat(group.nodeStatus())
          .extracting(NodeStatus::health)
          .containsExactly("ALIVE", "ALIVE");
    } finally {
      release.countDown();
      busy.join(5_000);
    }
  }

  @Test
  void ejectedNodeGetsNoCallsUntilItsEjectionEndsAndAGoodProbeReadmitsIt() throws Exception {
    bothConnected();
    ScriptedChannel sick = opened(7001);
    for (int i = 0; i < 3; i++) {
      group.onCallStarted(sick);
      group.onCallFinished(sick, 1_000_000, true);
    }
    assertThat(health(7001)).isEqualTo("EJECTED");
    for (int i = 0; i < 4; i++) {
      assertThat(port(group.route(settings, Set.of(), 0).get(1, TimeUnit.SECONDS))).isEqualTo(7002);
    }

    host.clock.forward(Duration.ofSeconds(10));
    assertThat(health(7001)).isEqualTo("PROBING");
    group.onCallStarted(sick);
    group.onCallFinished(sick, 1_000_000, false);

    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                host.events.stream()
                    .anyMatch(
                        e ->
                            e.kind() == TetherEvent.Kind.NODE_ALIVE
                                && e.detail().contains("probe call after ejection succeeded")));
    assertThat(health(7001)).isEqualTo("ALIVE");
  }

  @Test
  void ejectedNodeThatReconnectsStaysEjectedUntilItsTimeIsUp() {
    bothConnected();
    ScriptedChannel sick = opened(7001);
    for (int i = 0; i < 3; i++) {
      group.onCallFinished(sick, 1_000_000, true);
    }

    // A broken connection is redialled at once; the node is down until that dial connects.
    ScriptedSupervisors.closed(host.supervisorOf(7001), sick, true);
    assertThat(opened(7001)).isNotSameAs(sick);
    assertThat(health(7001)).isEqualTo("EJECTED");
    opened(7001).connects(null);

    assertThat(health(7001)).isEqualTo("EJECTED");
    assertThat(health(7002)).isEqualTo("ALIVE");
    host.clock.forward(Duration.ofSeconds(10));
    assertThat(health(7001)).isEqualTo("PROBING");
    awaitEvent(TetherEvent.Kind.NODE_READMITTED, 7001);
    assertThat(host.events)
        .as("its ejection hid the connection's loss")
        .noneMatch(e -> e.kind() == TetherEvent.Kind.NODE_DEAD);
  }

  /** Eject 7001 with three faults in a row on its connection. */
  private void eject7001() {
    ScriptedChannel sick = opened(7001);
    for (int i = 0; i < 3; i++) {
      group.onCallFinished(sick, 1_000_000, true);
    }
    assertThat(health(7001)).isEqualTo("EJECTED");
  }

  /** Moves the clock a second at a time, each dial to {@code port} failing as it starts. */
  private void everyDialFails(int port, Duration total) {
    for (long s = 0; s < total.toSeconds(); s++) {
      host.clock.forward(Duration.ofSeconds(1));
      ScriptedChannel last = opened(port);
      if (!last.ready().isDone()) {
        last.failsToConnect(new ConnectException("Connection refused"));
      }
    }
  }

  private TetherEvent awaitEvent(TetherEvent.Kind kind, int port) {
    return await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                host.events.stream()
                    .filter(e -> e.kind() == kind && e.endpoint().endsWith("-p " + port))
                    .findFirst(),
            found -> found.isPresent())
        .orElseThrow();
  }

  @Test
  void nodeWhoseEjectionEndsWhileItsConnectionIsDownIsDeadThenOnProbationWhenItReconnects() {
    bothConnected();
    eject7001();
    ScriptedSupervisors.closed(host.supervisorOf(7001), opened(7001), true);
    opened(7001).failsToConnect(new ConnectException("Connection refused"));

    everyDialFails(7001, Duration.ofSeconds(10));
    assertThat(health(7001)).isEqualTo("DEAD");
    assertThat(awaitEvent(TetherEvent.Kind.NODE_DEAD, 7001).detail())
        .isEqualTo("ejection of 10000 ms over, but its connection is down");

    host.clock.forward(Duration.ofSeconds(8));
    opened(7001).connects(null);

    assertThat(health(7001)).as("connected is not healthy: a call decides").isEqualTo("PROBING");
    assertThat(awaitEvent(TetherEvent.Kind.NODE_READMITTED, 7001).detail())
        .isEqualTo("connected after its ejection: its next call decides");
  }

  @Test
  void incompatibleNodeEmitsAnEvent() {
    host.incompatiblePorts.add(7001);
    ProxySettings ranged = settings.with(c -> c.serverVersion(VersionRange.parse("[2.0,3.0)")));
    NodeGroup versioned = new NodeGroup(host, ranged, new RoundRobinSelector());

    versioned.connectAny(ranged);
    opened(7001).connects(null);
    opened(7002).connects(null);

    assertThat(versioned.nodeStatus())
        .extracting(NodeStatus::health)
        .containsExactly("INCOMPATIBLE", "ALIVE");
    assertThat(awaitEvent(TetherEvent.Kind.NODE_INCOMPATIBLE, 7001).detail())
        .isEqualTo("its server runs a version outside [2.0,3.0)");
  }

  @Test
  void callWaitingForReadyGoesToANodeReadmittedAfterItsEjection() throws Exception {
    ProxySettings waiting = settings.with(c -> c.waitForReady(true));
    bothConnected();
    eject7001();
    ScriptedSupervisors.closed(host.supervisorOf(7002), opened(7002), true);
    opened(7002).failsToConnect(new ConnectException("Connection refused"));

    CompletableFuture<RequestChannel> routed =
        group.route(waiting, Set.of(), host.clock.nanoTime() + Duration.ofSeconds(30).toNanos());
    assertThat(routed).isNotDone();
    everyDialFails(7002, Duration.ofSeconds(10));

    assertThat(port(routed.get(1, TimeUnit.SECONDS))).isEqualTo(7001);
    assertThat(health(7001)).isEqualTo("PROBING");
  }
}
