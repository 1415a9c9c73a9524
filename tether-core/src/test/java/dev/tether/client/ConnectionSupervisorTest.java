package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.ConnectFailedException;
import dev.tether.Endpoint;
import dev.tether.internal.Backoff;
import dev.tether.internal.SerialExecutor;
import dev.tether.observe.TetherEvent;
import dev.tether.testing.ManualClock;
import dev.tether.transport.LocalTransport;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One key's supervisor on a manual clock, with connections the test opens, fails and closes by
 * hand: no socket. The backoff is 100 ms doubling, without jitter, so every delay is exact.
 */
class ConnectionSupervisorTest {
  private static final Backoff BACKOFF =
      new Backoff(Duration.ofMillis(100), 2.0, Duration.ofSeconds(10), 0);

  private final ManualClock clock = new ManualClock(1_000_000_000L);
  private final SerialExecutor control = new SerialExecutor();
  private final List<TetherEvent> events = new CopyOnWriteArrayList<>();
  private final ScriptedSupervisors host = new ScriptedSupervisors(control, clock, events::add);
  private final List<ScriptedChannel> dials = host.opened();
  private final Candidate candidate =
      new Candidate(
          Endpoint.parse("tcp -h 127.0.0.1 -p 7001"),
          new LocalTransport(),
          new InetSocketAddress("127.0.0.1", 7001),
          null,
          null);
  private final ConnectionSupervisor supervisor =
      new ConnectionSupervisor(host, candidate.key(""), candidate, BACKOFF);

  @AfterEach
  void stop() {
    host.events().close();
  }

  @Test
  void theFirstCallDialsAndTheKeyIsReadyOnceTheConnectionIs() {
    CompletableFuture<RequestChannel> call = supervisor.obtain(candidate);
    assertThat(supervisor.state()).isEqualTo(ConnectionSupervisor.State.CONNECTING);
    assertThat(dials).hasSize(1);

    dials.get(0).connects(null);

    assertThat(call).isCompletedWithValue(dials.get(0));
    assertThat(supervisor.state()).isEqualTo(ConnectionSupervisor.State.READY);
    assertThat(supervisor.usable()).isSameAs(dials.get(0));
  }

  @Test
  void aFailedFirstConnectStartsTheStreak() {
    CompletableFuture<RequestChannel> call = supervisor.obtain(candidate);
    dials.get(0).failsToConnect(new ConnectFailedException("connection refused"));

    assertThat(call).isCompletedExceptionally();
    assertThat(supervisor.state()).isEqualTo(ConnectionSupervisor.State.TRANSIENT_FAILURE);
    assertThat(supervisor.isBackingOff()).isTrue();
    assertThat(clock.pendingDelays()).containsExactly(Duration.ofMillis(100));
  }

  @Test
  void callsDuringTheDelayDoNotDialAndFailFastWithTheDueTime() {
    supervisor.obtain(candidate);
    dials.get(0).failsToConnect(new ConnectFailedException("connection refused"));
    clock.forward(Duration.ofMillis(40));

    for (int i = 0; i < 5; i++) {
      CompletableFuture<RequestChannel> call = supervisor.obtain(candidate);
      assertThat(call).isCompletedExceptionally();
      assertThat(causeOf(call))
          .isInstanceOf(ConnectFailedException.class)
          .hasMessageContaining("connection refused")
          .hasMessageContaining("next attempt due in 60 ms");
    }
    assertThat(dials).hasSize(1);
  }

  @Test
  void theScheduledAttemptDialsOncePerDelay() {
    supervisor.obtain(candidate);
    dials.get(0).failsToConnect(new ConnectFailedException("refused"));
    supervisor.obtain(candidate);

    clock.forward(Duration.ofMillis(99));
    assertThat(dials).hasSize(1);
    clock.forward(Duration.ofMillis(1));
    assertThat(dials).hasSize(2);

    dials.get(1).failsToConnect(new ConnectFailedException("refused again"));
    supervisor.obtain(candidate);
    clock.forward(Duration.ofMillis(199));
    assertThat(dials).hasSize(2);
    clock.forward(Duration.ofMillis(1));
    assertThat(dials).as("the second delay doubled").hasSize(3);
  }

  @Test
  void waitForReadyWaitsForTheNextAttemptAndGetsItsConnection() {
    supervisor.obtain(candidate);
    dials.get(0).failsToConnect(new ConnectFailedException("refused"));

    CompletableFuture<RequestChannel> waiting = supervisor.obtain(candidate, true, 0);
    assertThat(waiting).isNotDone();
    clock.forward(Duration.ofMillis(100));
    assertThat(waiting).isNotDone();
    dials.get(1).connects(null);

    assertThat(waiting).isCompletedWithValue(dials.get(1));
  }

  @Test
  void waitForReadyFailsAtOnceWhenTheNextAttemptIsDueAfterTheDeadline() {
    supervisor.obtain(candidate);
    dials.get(0).failsToConnect(new ConnectFailedException("refused"));

    CompletableFuture<RequestChannel> call =
        supervisor.obtain(candidate, true, clock.nanoTime() + Duration.ofMillis(50).toNanos());

    assertThat(causeOf(call))
        .isInstanceOf(ConnectFailedException.class)
        .hasMessageContaining("next attempt due in 100 ms");
  }

  @Test
  void aStreakNoCallAskedForSinceItsLastAttemptGoesBackToIdleAndKeepsItsDelays() {
    supervisor.obtain(candidate);
    dials.get(0).failsToConnect(new ConnectFailedException("refused"));

    clock.forward(Duration.ofMillis(100));
    assertThat(supervisor.state()).isEqualTo(ConnectionSupervisor.State.IDLE);
    assertThat(dials).hasSize(1);

    supervisor.obtain(candidate);
    assertThat(dials).as("an idle key dials for the call that asks").hasSize(2);
    dials.get(1).failsToConnect(new ConnectFailedException("refused"));
    assertThat(clock.pendingDelays()).containsExactly(Duration.ofMillis(200));
  }

  @Test
  void aKeyANodeGroupOwnsKeepsReconnectingWithoutCalls() {
    List<ConnectionSupervisor.State> told = new ArrayList<>();
    control.execute(() -> supervisor.keepConnected(BACKOFF, (s, state, cause) -> told.add(state)));
    supervisor.obtain(candidate);
    dials.get(0).failsToConnect(new ConnectFailedException("refused"));

    clock.forward(Duration.ofMillis(100));
    assertThat(dials).hasSize(2);
    dials.get(1).failsToConnect(new ConnectFailedException("refused"));
    clock.forward(Duration.ofMillis(200));
    assertThat(dials).hasSize(3);
    assertThat(supervisor.keepsConnected()).isTrue();
    assertThat(told)
        .startsWith(
            ConnectionSupervisor.State.IDLE,
            ConnectionSupervisor.State.CONNECTING,
            ConnectionSupervisor.State.TRANSIENT_FAILURE,
            ConnectionSupervisor.State.CONNECTING);
  }

  @Test
  void aLostConnectionIsDialledAgainAtOnceAndBacksOffOnlyWhenThatFails() {
    supervisor.obtain(candidate);
    dials.get(0).connects(null);

    supervisor.onConnectionClosed(dials.get(0), true, new ConnectFailedException("reset by peer"));
    assertThat(supervisor.state()).isEqualTo(ConnectionSupervisor.State.CONNECTING);
    assertThat(dials).hasSize(2);
    CompletableFuture<RequestChannel> during = supervisor.obtain(candidate);
    dials.get(1).failsToConnect(new ConnectFailedException("refused"));
    assertThat(causeOf(during)).hasMessageContaining("refused");
    assertThat(causeOf(supervisor.obtain(candidate)))
        .hasMessageContaining("next attempt due in 100 ms");

    clock.forward(Duration.ofMillis(100));
    dials.get(2).connects(null);
    assertThat(supervisor.state()).isEqualTo(ConnectionSupervisor.State.READY);
    assertThat(supervisor.obtain(candidate)).isCompletedWithValue(dials.get(2));
    assertThat(dials).hasSize(3);
  }

  @Test
  void aLostConnectionGetsOneScheduledAttemptThoughNoCallAsks() {
    supervisor.obtain(candidate);
    dials.get(0).connects(null);
    supervisor.onConnectionClosed(dials.get(0), true, new ConnectFailedException("reset by peer"));
    dials.get(1).failsToConnect(new ConnectFailedException("refused"));

    clock.forward(Duration.ofMillis(100));
    assertThat(dials).hasSize(3);
    dials.get(2).failsToConnect(new ConnectFailedException("refused"));
    clock.forward(Duration.ofMillis(200));
    assertThat(dials).hasSize(3);
    assertThat(supervisor.state()).isEqualTo(ConnectionSupervisor.State.IDLE);
  }

  @Test
  void aConnectionClosedOnPurposeLeavesTheKeyIdle() {
    supervisor.obtain(candidate);
    dials.get(0).connects(null);

    supervisor.onConnectionClosed(dials.get(0), false, null);

    assertThat(supervisor.state()).isEqualTo(ConnectionSupervisor.State.IDLE);
    assertThat(clock.pendingDelays()).isEmpty();
  }

  @Test
  void staleAttemptCallbacksAreIgnored() {
    supervisor.obtain(candidate);
    ScriptedChannel first = dials.get(0);
    supervisor.onConnectionClosed(
        first, false, new ConnectFailedException("closed while connecting"));
    assertThat(clock.pendingDelays()).containsExactly(Duration.ofMillis(100));

    first.failsToConnect(new ConnectFailedException("late failure of the same attempt"));
    supervisor.onConnectionClosed(first, true, null);

    assertThat(clock.pendingDelays())
        .as("one streak step, not three")
        .containsExactly(Duration.ofMillis(100));
    assertThat(supervisor.state()).isEqualTo(ConnectionSupervisor.State.TRANSIENT_FAILURE);
  }

  @Test
  void shutdownIsTerminal() {
    supervisor.obtain(candidate);
    dials.get(0).failsToConnect(new ConnectFailedException("refused"));
    CompletableFuture<RequestChannel> waiting = supervisor.obtain(candidate, true, 0);

    supervisor.shutdown();
    clock.forward(Duration.ofSeconds(1));

    assertThat(supervisor.state()).isEqualTo(ConnectionSupervisor.State.SHUTDOWN);
    assertThat(dials).as("the pending attempt was called off").hasSize(1);
    assertThat(causeOf(waiting)).hasMessageContaining("closed");
    assertThat(causeOf(supervisor.obtain(candidate))).hasMessageContaining("closed");
    supervisor.onConnectionClosed(dials.get(0), true, null);
    assertThat(supervisor.state()).isEqualTo(ConnectionSupervisor.State.SHUTDOWN);
  }

  @Test
  void aConnectionReplacedForItsAgeStaysAmongThePoolsConnectionsUntilItCloses() {
    ConnectionPool pool = new ConnectionPool(host, BACKOFF, clock);
    ConnectionSupervisor key = pool.supervisor(candidate, "");
    key.obtain(candidate);
    ScriptedChannel aged = dials.get(0).connects(null);

    key.onAged(aged, "the server moved it on");
    ScriptedChannel replacement = dials.get(1).connects(null);

    // New calls go to the replacement; the aged connection drains the calls it still carries, and
    // a closing runtime must still find it to end them.
    assertThat(key.usable()).isSameAs(replacement);
    assertThat(aged.wasDrained()).isTrue();
    assertThat(pool.all()).containsExactlyInAnyOrder(replacement, aged);

    key.onConnectionClosed(aged, false, null);

    assertThat(pool.all()).containsExactly(replacement);
    assertThat(key.state()).isEqualTo(ConnectionSupervisor.State.READY);
  }

  @Test
  void anExtraConnectionReadyJustAsTheRuntimeClosesIsClosedAndTakesNoCalls() {
    ConnectionSupervisor key =
        new ConnectionSupervisor(
            host.allowingExtraConnections(1), candidate.key(""), candidate, BACKOFF);
    key.obtain(candidate);
    ScriptedChannel own = dials.get(0).connects(null);
    key.onSaturated(own);
    ScriptedChannel extra = dials.get(1);

    key.shutdown();
    // Its handshake had already finished: the close the shutdown sent it races the answer.
    extra.connects(null);

    assertThat(extra.closeFuture().isDone()).isTrue();
    assertThat(key.extras()).as("the pool's close would never reach it").isEmpty();
    assertThat(own.handedTo()).as("no call waits on it").isNull();
  }

  @Test
  void eachDialIsOneEventAndAFailedOneSaysWhenTheNextIsDue() {
    supervisor.obtain(candidate);
    dials.get(0).failsToConnect(new ConnectFailedException("refused"));
    supervisor.obtain(candidate);
    clock.forward(Duration.ofMillis(100));
    dials.get(1).connects(null);

    await().atMost(Duration.ofSeconds(5)).until(() -> events.size() == 4);
    assertThat(events)
        .extracting(TetherEvent::kind)
        .containsExactly(
            TetherEvent.Kind.CONNECTING,
            TetherEvent.Kind.CONNECT_FAILED,
            TetherEvent.Kind.CONNECTING,
            TetherEvent.Kind.CONNECTED);
    assertThat(events.get(1).detail()).contains("refused").contains("next attempt due in 100 ms");
    assertThat(events)
        .allSatisfy(e -> assertThat(e.endpoint()).isEqualTo("tcp -h 127.0.0.1 -p 7001"));
  }

  @Test
  void transitionsMapToDialEventsOnly() {
    assertThat(
            SupervisorEvents.eventOf(
                ConnectionSupervisor.State.IDLE, ConnectionSupervisor.State.CONNECTING))
        .isEqualTo(TetherEvent.Kind.CONNECTING);
    assertThat(
            SupervisorEvents.eventOf(
                ConnectionSupervisor.State.CONNECTING, ConnectionSupervisor.State.READY))
        .isEqualTo(TetherEvent.Kind.CONNECTED);
    assertThat(
            SupervisorEvents.eventOf(
                ConnectionSupervisor.State.CONNECTING,
                ConnectionSupervisor.State.TRANSIENT_FAILURE))
        .isEqualTo(TetherEvent.Kind.CONNECT_FAILED);
    assertThat(
            SupervisorEvents.eventOf(
                ConnectionSupervisor.State.READY, ConnectionSupervisor.State.TRANSIENT_FAILURE))
        .as("the connection reports its own close")
        .isNull();
    assertThat(
            SupervisorEvents.eventOf(
                ConnectionSupervisor.State.TRANSIENT_FAILURE, ConnectionSupervisor.State.IDLE))
        .isNull();
  }

  private static Throwable causeOf(CompletableFuture<?> f) {
    assertThat(f).isCompletedExceptionally();
    try {
      f.get();
      throw new AssertionError("not failed");
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }
}
