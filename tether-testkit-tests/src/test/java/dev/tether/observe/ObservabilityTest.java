package dev.tether.observe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tether.ConnectionState;
import dev.tether.EndpointSelection;
import dev.tether.Idempotency;
import dev.tether.LoadBalancing;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.Topology;
import dev.tether.observe.TetherEvent.Kind;
import dev.tether.testkit.Direction;
import dev.tether.testkit.FakeClock;
import dev.tether.testkit.FaultProxy;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The event contract from the outside: every client event kind comes out of a real scenario on
 * loopback, listeners cannot hurt the runtime, and status snapshots show what connections and nodes
 * are doing.
 */
class ObservabilityTest {
  private static final Duration WAIT = Duration.ofSeconds(10);

  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final List<TetherEvent> events = new CopyOnWriteArrayList<>();
  private final CountDownLatch release = new CountDownLatch(1);
  private final AtomicInteger executed = new AtomicInteger();

  @AfterEach
  void stop() throws Exception {
    release.countDown();
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private TetherServer server(TetherServer.Builder b) {
    TetherServer s =
        b.endpoints("tcp -h 127.0.0.1 -p 0")
            .service(
                "svc",
                (op, payload, ctx) -> {
                  executed.incrementAndGet();
                  if (op.equals("hold")) {
                    release.await(30, TimeUnit.SECONDS);
                  }
                  return "ok".getBytes(StandardCharsets.UTF_8);
                })
            .build()
            .start();
    closeables.add(s);
    return s;
  }

  private TetherServer server() {
    return server(TetherServer.builder());
  }

  private FaultProxy faultProxyFor(TetherServer s) {
    FaultProxy fp = FaultProxy.start("127.0.0.1", s.endpoints().get(0).port());
    closeables.add(fp);
    return fp;
  }

  private Tether tether(Tether.Builder b, String... properties) {
    for (int i = 0; i < properties.length; i += 2) {
      b.property(properties[i], properties[i + 1]);
    }
    Tether t = b.listener(events::add).build();
    closeables.add(t);
    return t;
  }

  private Tether tether(String... properties) {
    return tether(Tether.builder(), properties);
  }

  private static String endpoint(TetherServer s) {
    return s.endpoints().get(0).toString();
  }

  private List<TetherEvent> awaitEvent(Kind kind) {
    await().atMost(WAIT).until(() -> events.stream().anyMatch(e -> e.kind() == kind));
    return events.stream().filter(e -> e.kind() == kind).toList();
  }

  private static int deadPort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  @Test
  void firstCallEmitsConnectingThenConnectedForTheEndpoint() {
    TetherServer s = server();
    Proxy p = tether().proxy("svc:" + endpoint(s));
    p.invoke("echo", new byte[0]);
    assertThat(awaitEvent(Kind.CONNECTED))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.endpoint()).isEqualTo(endpoint(s));
              assertThat(e.detail()).contains("handshake done");
            });
    List<Kind> kinds = events.stream().map(TetherEvent::kind).toList();
    assertThat(kinds.indexOf(Kind.CONNECTING)).isLessThan(kinds.indexOf(Kind.CONNECTED));
  }

  @Test
  void unreachableEndpointEmitsConnectFailedWithTheCause() throws Exception {
    TetherServer s = server();
    String dead = "tcp -h 127.0.0.1 -p " + deadPort();
    Proxy p =
        tether()
            .proxy("svc:" + dead + ":" + endpoint(s))
            .withEndpointSelection(EndpointSelection.ORDERED);
    p.invoke("echo", new byte[0]);
    assertThat(awaitEvent(Kind.CONNECT_FAILED))
        .anySatisfy(
            e -> {
              assertThat(e.endpoint()).isEqualTo(dead);
              assertThat(e.cause()).isNotNull();
            });
  }

  @Test
  void killedNodeEmitsConnectionClosedAndNodeDeadAndStatusShowsItDead() {
    TetherServer a = server();
    FaultProxy fa = faultProxyFor(a);
    TetherServer b = server();
    Tether t = tether();
    Proxy p =
        t.proxy("svc:" + fa.endpoint() + ":" + endpoint(b))
            .withLoadBalancing(LoadBalancing.ROUND_ROBIN);
    p.connectAsync().join();
    await()
        .atMost(WAIT)
        .until(
            () -> t.status().nodes().stream().filter(n -> n.health().equals("ALIVE")).count() == 2);

    fa.stop();
    fa.resetAll();

    assertThat(awaitEvent(Kind.CONNECTION_CLOSED))
        .anySatisfy(e -> assertThat(e.endpoint()).isEqualTo(fa.endpoint()));
    assertThat(awaitEvent(Kind.NODE_DEAD))
        .singleElement()
        .satisfies(e -> assertThat(e.endpoint()).isEqualTo(fa.endpoint()));
    assertThat(t.status().nodes())
        .anySatisfy(
            n -> {
              assertThat(n.endpoint()).isEqualTo(fa.endpoint());
              assertThat(n.health()).isEqualTo("DEAD");
            });
    for (int i = 0; i < 10; i++) {
      p.invoke("echo", new byte[0]);
    }
  }

  @Test
  void nodeWhoseConnectionComesBackIsUsedAgainWithoutWaitingForASecondBackoff() {
    TetherServer a = server();
    FaultProxy fa = faultProxyFor(a);
    TetherServer b = server();
    FakeClock clock = new FakeClock();
    // The fake clock moves only when told: the cluster's backoff reconnects when the test says.
    Tether t = tether(Tether.builder().ticker(clock).scheduler(clock));
    Proxy balanced =
        t.proxy("svc:" + fa.endpoint() + ":" + endpoint(b))
            .withLoadBalancing(LoadBalancing.ROUND_ROBIN);
    balanced.connectAsync().join();
    await()
        .atMost(WAIT)
        .until(
            () -> t.status().nodes().stream().filter(n -> n.health().equals("ALIVE")).count() == 2);
    fa.stop();
    fa.resetAll();
    awaitEvent(Kind.NODE_DEAD);
    assertThat(clock.pendingTasks()).isPositive();

    fa.restart();
    // The key's one scheduled reconnect brings it back; the node follows its supervisor at once,
    // and a pinned proxy of the same key gets that connection without dialling.
    clock.forward(java.time.Duration.ofSeconds(1));
    await()
        .atMost(WAIT)
        .until(
            () -> {
              try {
                t.proxy("svc:" + fa.endpoint()).invoke("echo", new byte[0]);
                return true;
              } catch (dev.tether.TetherException stillConnecting) {
                return false;
              }
            });

    assertThat(awaitEvent(Kind.NODE_ALIVE)).hasSizeGreaterThanOrEqualTo(3);
    assertThat(t.status().nodes()).allSatisfy(n -> assertThat(n.health()).isEqualTo("ALIVE"));
    int acceptedBefore = fa.acceptedConnections();
    for (int i = 0; i < 6; i++) {
      balanced.invoke("echo", new byte[0]);
    }
    assertThat(fa.bytesForwarded(Direction.CLIENT_TO_SERVER)).isPositive();
    assertThat(fa.acceptedConnections())
        .as("the restored connection was reused")
        .isEqualTo(acceptedBefore);
  }

  @Test
  void serverDrainEmitsGoawayReceived() {
    TetherServer s = server();
    Proxy p = tether().proxy("svc:" + endpoint(s));
    p.invoke("echo", new byte[0]);
    s.shutdownGracefully(Duration.ofSeconds(5));
    assertThat(awaitEvent(Kind.GOAWAY_RECEIVED))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.endpoint()).isEqualTo(endpoint(s));
              assertThat(e.detail()).contains("SHUTDOWN");
            });
  }

  @Test
  void frozenPeerEmitsHeartbeatTimeoutWhenTheFakeClockPassesTheIdleTimeout() {
    TetherServer s = server();
    FaultProxy fp = faultProxyFor(s);
    FakeClock clock = new FakeClock();
    Tether t =
        tether(
            Tether.builder().ticker(clock).scheduler(clock),
            "tether.heartbeat.readerIdle",
            "3s",
            "tether.heartbeat.idleTimeout",
            "10s");
    Proxy p = t.proxy("svc:" + fp.endpoint());
    p.invoke("echo", new byte[0]);
    fp.freeze();
    // The checks run on the connection's loop, a hop away from the clock: step time in small
    // increments, as a real clock would, and look for the verdict after each step.
    long[] elapsedMs = {0};
    while (elapsedMs[0] < 9_900) {
      clock.forward(Duration.ofMillis(100));
      elapsedMs[0] += 100;
    }
    assertThat(events).noneMatch(e -> e.kind() == Kind.HEARTBEAT_TIMEOUT);
    await()
        .atMost(WAIT)
        .until(
            () -> {
              if (elapsedMs[0] < 15_000) {
                clock.forward(Duration.ofMillis(100));
                elapsedMs[0] += 100;
              }
              return events.stream().anyMatch(e -> e.kind() == Kind.HEARTBEAT_TIMEOUT);
            });
    TetherEvent timeout = awaitEvent(Kind.HEARTBEAT_TIMEOUT).get(0);
    long silentMs =
        Long.parseLong(timeout.detail().replaceAll(".*nothing read for (\\d+) ms.*", "$1"));
    assertThat(silentMs).isBetween(10_000L, 13_000L);
    await()
        .atMost(WAIT)
        .until(() -> events.stream().anyMatch(e -> e.kind() == Kind.CONNECTION_CLOSED));
  }

  @Test
  void refusedCallEmitsRetryAndStatusCountsIt() {
    TetherServer full =
        server(
            TetherServer.builder()
                .executor(
                    task -> {
                      throw new RejectedExecutionException("no thread free");
                    }));
    TetherServer spare = server();
    Tether t = tether();
    Proxy p =
        t.proxy("svc:" + endpoint(full) + ":" + endpoint(spare))
            .withEndpointSelection(EndpointSelection.ORDERED);
    p.invoke("echo", new byte[0]);
    assertThat(awaitEvent(Kind.RETRY))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.endpoint()).isEqualTo(endpoint(full));
              assertThat(e.detail()).contains("retrying echo of svc (retry 1) after REFUSED");
            });
    assertThat(t.status().retries()).isEqualTo(1);
  }

  @Test
  void spentBudgetEmitsRetryBudgetExhausted() {
    TetherServer full =
        server(
            TetherServer.builder()
                .executor(
                    task -> {
                      throw new RejectedExecutionException("no thread free");
                    }));
    Tether t = tether("tether.retry.budget.ratio", "0", "tether.retry.budget.floorPerSecond", "0");
    Proxy p = t.proxy("svc:" + endpoint(full));
    assertThatThrownBy(() -> p.invoke("echo", new byte[0]))
        .isInstanceOf(dev.tether.RequestRefusedException.class);
    assertThat(awaitEvent(Kind.RETRY_BUDGET_EXHAUSTED))
        .singleElement()
        .satisfies(e -> assertThat(e.detail()).contains("retry budget is spent"));
    assertThat(t.status().retryBudgetExhausted()).isEqualTo(1);
  }

  @Test
  void connectionToAnAlternateOfTheClusterViewEmitsReroute() throws Exception {
    String deadPrimary = "tcp -h 127.0.0.1 -p " + deadPort();
    TetherServer alternate = server(TetherServer.builder());
    alternate.setTopology(Topology.of(deadPrimary, List.of(endpoint(alternate))));
    Proxy p = tether().proxy("svc:" + endpoint(alternate));
    p.invoke("echo", new byte[0]); // learns the view from the alternate itself
    p.resetBinding();
    p.invoke("echo", new byte[0]); // primary first: dead, so the alternate
    assertThat(p.alternateWasUsed()).isTrue();
    assertThat(awaitEvent(Kind.REROUTE))
        .anySatisfy(e -> assertThat(e.endpoint()).isEqualTo(endpoint(alternate)));
  }

  @Test
  void listenerThatThrowsChangesNothingForCallsOrOtherListeners() {
    TetherServer s = server();
    AtomicInteger thrown = new AtomicInteger();
    Tether t =
        Tether.builder()
            .listener(
                e -> {
                  thrown.incrementAndGet();
                  throw new IllegalStateException("a listener bug");
                })
            .listener(events::add)
            .build();
    closeables.add(t);
    Proxy p = t.proxy("svc:" + endpoint(s));
    for (int i = 0; i < 5; i++) {
      assertThat(new String(p.invoke("echo", new byte[0]), StandardCharsets.UTF_8)).isEqualTo("ok");
    }
    awaitEvent(Kind.CONNECTED);
    // Each event reaches the thrower first, then the collector: both saw every one.
    await().atMost(WAIT).until(() -> thrown.get() == events.size());
    assertThat(events).extracting(TetherEvent::kind).contains(Kind.CONNECTING, Kind.CONNECTED);
  }

  @Test
  void statusShowsEachConnectionWithItsStateInFlightCallsAndCounts() {
    TetherServer s = server();
    Tether t = tether();
    Proxy p = t.proxy("svc:" + endpoint(s));
    p.invoke("echo", new byte[0]);
    List<CompletableFuture<byte[]>> held = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      held.add(p.invokeAsync("hold", new byte[0]));
    }
    await().atMost(WAIT).until(() -> executed.get() == 4);

    ConnectionStatus c = t.status().connections().get(0);
    assertThat(c.endpoint()).isEqualTo(endpoint(s));
    assertThat(c.state()).isEqualTo(ConnectionState.ACTIVE);
    assertThat(c.inFlight()).isEqualTo(3);
    assertThat(c.callsOk()).isEqualTo(1);

    release.countDown();
    CompletableFuture.allOf(held.toArray(CompletableFuture[]::new)).join();
    await().atMost(WAIT).until(() -> t.status().connections().get(0).callsOk() == 4);
    assertThat(t.status().connections().get(0).inFlight()).isZero();
  }

  @Test
  void nodeInFlightReturnsToZeroOnceItsCallsAreAnswered() {
    TetherServer a = server();
    TetherServer b = server();
    Tether t = tether();
    Proxy p =
        t.proxy("svc:" + endpoint(a) + ":" + endpoint(b))
            .withLoadBalancing(LoadBalancing.LEAST_LOADED);
    for (int i = 0; i < 50; i++) {
      p.invoke("echo", new byte[0], Idempotency.IDEMPOTENT);
    }
    assertThat(t.status().nodes())
        .hasSize(2)
        .allSatisfy(
            n -> {
              assertThat(n.inFlight()).isZero();
              assertThat(n.latencyMicros()).isPositive();
            });
  }

  @Test
  void cancellingTheFutureCancelsTheCallSendsCancelAndFreesItsSlot() {
    TetherServer s = server();
    FaultProxy fp = faultProxyFor(s);
    Tether t = tether("tether.heartbeat.readerIdle", "0", "tether.heartbeat.idleTimeout", "0");
    Proxy p = t.proxy("svc:" + fp.endpoint());
    p.invoke("echo", new byte[0]);
    CompletableFuture<byte[]> held = p.invokeAsync("hold", new byte[0]);
    await().atMost(WAIT).until(() -> executed.get() == 2);
    long sentBefore = fp.bytesForwarded(Direction.CLIENT_TO_SERVER);

    assertThat(held.cancel(true)).isTrue();

    await().atMost(WAIT).until(() -> t.status().connections().get(0).inFlight() == 0);
    // A CANCEL frame is a 10-byte header: length, type, flags, request id.
    await()
        .atMost(WAIT)
        .until(() -> fp.bytesForwarded(Direction.CLIENT_TO_SERVER) == sentBefore + 10);
    assertThat(held).isCancelled();
    assertThat(p.invoke("echo", new byte[0])).isNotEmpty();
  }

  @Test
  void completingTheFutureFromOutsideLeavesTheCallToTheRuntime() {
    TetherServer s = server();
    Tether t = tether();
    Proxy p = t.proxy("svc:" + endpoint(s));
    p.invoke("echo", new byte[0]);
    CompletableFuture<byte[]> held = p.invokeAsync("hold", new byte[0]);
    await().atMost(WAIT).until(() -> executed.get() == 2);

    assertThat(held.complete(new byte[] {42})).isTrue();
    assertThat(held.join()).containsExactly(42);
    assertThat(t.status().connections().get(0).inFlight())
        .as("still waiting for the real answer")
        .isEqualTo(1);

    release.countDown();
    await().atMost(WAIT).until(() -> t.status().connections().get(0).callsOk() == 2);
    assertThat(t.status().connections().get(0).inFlight()).isZero();
  }
}
