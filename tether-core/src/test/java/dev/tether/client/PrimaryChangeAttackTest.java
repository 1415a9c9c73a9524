package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tether.Proxy;
import dev.tether.SessionLostException;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.Topology;
import dev.tether.observe.TetherEvent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The primary changing under a client at its worst moments, over real loopback: a session's call in
 * flight as its server stops being primary, a lagging member's view of an earlier election, a
 * server that becomes primary again, and a primary closed as it steps down.
 */
class PrimaryChangeAttackTest {
  private final List<TetherServer> servers = new ArrayList<>();
  private final List<TetherEvent> events = new CopyOnWriteArrayList<>();
  private final CountDownLatch slowEntered = new CountDownLatch(1);
  private final CountDownLatch slowRelease = new CountDownLatch(1);
  private final AtomicInteger slowRuns = new AtomicInteger();
  private Tether tether;

  @AfterEach
  void stop() {
    slowRelease.countDown();
    if (tether != null) {
      tether.close();
    }
    servers.forEach(TetherServer::close);
  }

  private TetherServer server(String name) {
    return server(name, TetherServer.builder());
  }

  private TetherServer server(String name, TetherServer.Builder builder) {
    TetherServer s =
        builder
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service(
                "svc",
                (op, payload, ctx) -> {
                  if (op.equals("slow")) {
                    slowRuns.incrementAndGet();
                    slowEntered.countDown();
                    slowRelease.await(10, TimeUnit.SECONDS);
                  }
                  return name.getBytes(StandardCharsets.UTF_8);
                })
            .build()
            .start();
    servers.add(s);
    return s;
  }

  private static String call(Proxy p, String op) {
    return new String(p.invoke(op, new byte[0]), StandardCharsets.UTF_8);
  }

  private static String whoami(Proxy p) {
    return call(p, "whoami");
  }

  private void announce(Topology t) {
    servers.forEach(s -> s.setTopology(t));
  }

  private static String endpoint(TetherServer s) {
    return s.endpoints().get(0).toString();
  }

  /** Waits until a connection of its own, as a new call would open it, goes to {@code who}. */
  private static void awaitNewConnectionsGoTo(Proxy p, String who) {
    AtomicInteger tries = new AtomicInteger();
    await().until(() -> whoami(p.withConnectionId("probe-" + tries.incrementAndGet())).equals(who));
  }

  @Test
  void aSessionCallInFlightAsItsServerStopsBeingPrimaryRunsOnceThereAndTheNextEndsTheSession()
      throws Exception {
    TetherServer a = server("A");
    TetherServer b = server("B");
    announce(Topology.of(endpoint(a), List.of(endpoint(b))).withEpoch(10));
    tether = Tether.builder().build();
    Proxy p = tether.proxy("svc:" + endpoint(a));
    Proxy session = p.withSession("cart-1");
    assertThat(whoami(session)).isEqualTo("A");
    CompletableFuture<String> inFlight = CompletableFuture.supplyAsync(() -> call(session, "slow"));
    assertThat(slowEntered.await(5, TimeUnit.SECONDS)).isTrue();

    announce(Topology.of(endpoint(b), List.of(endpoint(a))).withEpoch(12));
    awaitNewConnectionsGoTo(p, "B");
    slowRelease.countDown();

    // The call the old primary had begun finishes there, once; the session's next call is told
    // its work was lost, once, and the one after runs on the new primary.
    assertThat(inFlight.get(5, TimeUnit.SECONDS)).isEqualTo("A");
    assertThat(slowRuns).hasValue(1);
    await()
        .untilAsserted(
            () ->
                assertThatThrownBy(() -> whoami(session)).isInstanceOf(SessionLostException.class));
    assertThat(whoami(session)).isEqualTo("B");
    assertThat(whoami(session)).isEqualTo("B");
    assertThat(slowRuns).hasValue(1);
  }

  @Test
  void aSessionCallingWithoutPauseAsThePrimaryMovesNeverMovesWithoutSessionLost() throws Exception {
    TetherServer a = server("A");
    TetherServer b = server("B");
    Topology onA = Topology.of(endpoint(a), List.of(endpoint(b)));
    Topology onB = Topology.of(endpoint(b), List.of(endpoint(a)));
    announce(onA.withEpoch(10));
    tether = Tether.builder().build();
    Proxy session = tether.proxy("svc:" + endpoint(a)).withSession("tight-loop");
    List<String> outcomes = new CopyOnWriteArrayList<>();
    java.util.concurrent.atomic.AtomicBoolean stop =
        new java.util.concurrent.atomic.AtomicBoolean();
    CompletableFuture<Void> caller =
        CompletableFuture.runAsync(
            () -> {
              for (int i = 0; i < 200_000 && !stop.get(); i++) {
                try {
                  outcomes.add(whoami(session));
                } catch (SessionLostException e) {
                  outcomes.add("lost");
                }
              }
            });
    // Four moves, each while the caller is calling: A, B, A, B, A.
    for (int move = 1; move <= 4; move++) {
      int before = outcomes.size();
      await().until(() -> outcomes.size() > before + 200);
      announce((move % 2 == 1 ? onB : onA).withEpoch(10 + move));
      String next = move % 2 == 1 ? "B" : "A";
      await().until(() -> outcomes.size() > 1 && outcomes.get(outcomes.size() - 1).equals(next));
    }
    stop.set(true);
    caller.get(10, TimeUnit.SECONDS);

    // Every change of server is announced by exactly one SessionLostException just before it.
    String server = "A";
    for (int i = 0; i < outcomes.size(); i++) {
      String o = outcomes.get(i);
      if (o.equals("lost")) {
        assertThat(i + 1).as("the call after a lost session").isLessThan(outcomes.size());
        assertThat(outcomes.get(i + 1)).as("call " + (i + 1)).isNotEqualTo(server);
        server = outcomes.get(i + 1);
        i++;
      } else {
        assertThat(o)
            .as("call " + i + " ran where the session was, without losing it")
            .isEqualTo(server);
      }
    }
  }

  @Test
  void aLaggingMembersViewOfAnEarlierElectionDoesNotDrawProxiesBackToIt() {
    TetherServer a = server("A");
    TetherServer b = server("B");
    announce(Topology.of(endpoint(b), List.of(endpoint(a))).withEpoch(10));
    tether = Tether.builder().listener(events::add).build();
    Proxy p = tether.proxy("svc:" + endpoint(a));
    assertThat(whoami(p)).isEqualTo("B");
    // A keeps a connection from this client: the one a call pinned to A's address opens.
    Proxy toA = tether.proxy("svc:" + endpoint(a) + ":" + endpoint(b));

    a.setTopology(Topology.of(endpoint(a), List.of(endpoint(b))).withEpoch(4));
    await()
        .until(
            () ->
                events.stream()
                    .anyMatch(
                        e ->
                            e.kind() == TetherEvent.Kind.TOPOLOGY_CHANGED
                                && e.detail().endsWith("epoch 4")));
    assertThat(whoami(toA)).isEqualTo("B");

    for (int i = 0; i < 10; i++) {
      assertThat(whoami(p.withConnectionId("late-" + i))).isEqualTo("B");
      assertThat(whoami(tether.proxy("svc:" + endpoint(a)))).isEqualTo("B");
    }
    assertThat(events).filteredOn(e -> e.kind() == TetherEvent.Kind.REROUTE).isNotEmpty();
  }

  @Test
  void aServerPrimaryAgainAfterSteppingDownTakesItsClientsBackWithoutMovingThemAgain() {
    TetherServer a = server("A");
    TetherServer b = server("B");
    announce(Topology.of(endpoint(a), List.of(endpoint(b))).withEpoch(10));
    tether = Tether.builder().build();
    Proxy p = tether.proxy("svc:" + endpoint(a));
    Proxy session = p.withSession("cart-2");
    assertThat(whoami(session)).isEqualTo("A");

    announce(Topology.of(endpoint(b), List.of(endpoint(a))).withEpoch(11));
    await()
        .untilAsserted(
            () ->
                assertThatThrownBy(() -> whoami(session)).isInstanceOf(SessionLostException.class));
    assertThat(whoami(session)).isEqualTo("B");

    announce(Topology.of(endpoint(a), List.of(endpoint(b))).withEpoch(12));
    await()
        .untilAsserted(
            () ->
                assertThatThrownBy(() -> whoami(session)).isInstanceOf(SessionLostException.class));
    // Back on A, and it stays there: A, primary again, moves no one.
    for (int i = 0; i < 50; i++) {
      assertThat(whoami(session)).isEqualTo("A");
    }
    assertThat(whoami(p)).isEqualTo("A");
  }

  @Test
  void aPrimaryClosedAsItStepsDownLeavesItsClientsOnTheNewPrimary() throws Exception {
    TetherServer a = server("A");
    TetherServer b = server("B");
    announce(Topology.of(endpoint(a), List.of(endpoint(b))).withEpoch(10));
    tether = Tether.builder().build();
    Proxy p = tether.proxy("svc:" + endpoint(a));
    Proxy session = p.withSession("cart-3");
    assertThat(whoami(session)).isEqualTo("A");
    Topology next = Topology.of(endpoint(b), List.of(endpoint(a))).withEpoch(11);

    CompletableFuture<Void> stepDown = CompletableFuture.runAsync(() -> a.setTopology(next));
    CompletableFuture<Void> close = CompletableFuture.runAsync(a::close);
    b.setTopology(next);
    stepDown.get(3, TimeUnit.SECONDS);
    close.get(3, TimeUnit.SECONDS);

    assertThat(whoami(p)).isEqualTo("B");
    assertThatThrownBy(() -> whoami(session)).isInstanceOf(SessionLostException.class);
    assertThat(whoami(session)).isEqualTo("B");
  }

  @Test
  void closingTheRuntimeAsThePrimaryMovesEndsTheSessionCallLeftOnTheOldPrimaryWithinTheGrace()
      throws Exception {
    TetherServer a = server("A");
    TetherServer b = server("B");
    announce(Topology.of(endpoint(a), List.of(endpoint(b))).withEpoch(10));
    tether = Tether.builder().property("tether.close.grace", "300ms").build();
    Proxy p = tether.proxy("svc:" + endpoint(a));
    Proxy session = p.withSession("cart-4");
    assertThat(whoami(session)).isEqualTo("A");
    CompletableFuture<byte[]> inFlight = session.invokeAsync("slow", new byte[0]);
    assertThat(slowEntered.await(5, TimeUnit.SECONDS)).isTrue();

    announce(Topology.of(endpoint(b), List.of(endpoint(a))).withEpoch(11));
    CompletableFuture<Void> closing = CompletableFuture.runAsync(tether::close);

    // The old primary still holds the call, the move's new connection may be dialling: the close
    // ends the call anyway, within its grace, and returns.
    closing.get(3, TimeUnit.SECONDS);
    assertThatThrownBy(() -> inFlight.get(3, TimeUnit.SECONDS))
        .isInstanceOf(java.util.concurrent.ExecutionException.class)
        .cause()
        .isInstanceOf(dev.tether.TetherException.class);
    assertThat(slowRuns).hasValue(1);
  }

  @Test
  void aSessionCallOutlastingTheOldPrimarysGraceFailsLoudlyAndIsNotRunAgainOnTheNewOne()
      throws Exception {
    TetherServer a =
        server("A", TetherServer.builder().maxConnectionAgeGrace(java.time.Duration.ofMillis(200)));
    TetherServer b = server("B");
    announce(Topology.of(endpoint(a), List.of(endpoint(b))).withEpoch(10));
    tether = Tether.builder().build();
    Proxy session = tether.proxy("svc:" + endpoint(a)).withSession("cart-5");
    assertThat(whoami(session)).isEqualTo("A");
    CompletableFuture<byte[]> inFlight = session.invokeAsync("slow", new byte[0]);
    assertThat(slowEntered.await(5, TimeUnit.SECONDS)).isTrue();

    announce(Topology.of(endpoint(b), List.of(endpoint(a))).withEpoch(11));

    // A's grace ends with the call still running there: the caller is told, and the call, which
    // may have done its work on A, is not sent to B.
    assertThatThrownBy(() -> inFlight.get(5, TimeUnit.SECONDS))
        .isInstanceOf(java.util.concurrent.ExecutionException.class)
        .cause()
        .isInstanceOf(dev.tether.TetherException.class);
    slowRelease.countDown();
    assertThat(slowRuns).hasValue(1);
    // The session's next call says its work was lost, once; the one after runs on B.
    assertThatThrownBy(() -> whoami(session)).isInstanceOf(SessionLostException.class);
    assertThat(whoami(session)).isEqualTo("B");
    assertThat(slowRuns).hasValue(1);
  }
}
