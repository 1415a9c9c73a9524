package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.ConnectFailedException;
import dev.tether.Endpoint;
import dev.tether.internal.Backoff;
import dev.tether.internal.SerialExecutor;
import dev.tether.testing.ManualClock;
import dev.tether.transport.Transport;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Attacks on what one key's supervisor lets a call's later round dial, on a manual clock with
 * connections the test fails by hand: calls arriving at each state change of the key, as a crowd
 * against a dead server would, must not add up to more dials than the backoff's schedule plus one
 * walk, and no call may be left waiting on a key that will never dial.
 */
class SupervisorRedialAttackTest {
  private static final Backoff BACKOFF =
      new Backoff(Duration.ofMillis(100), 2.0, Duration.ofSeconds(10), 0);

  private final ManualClock clock = new ManualClock(1_000_000_000L);
  private final ScriptedSupervisors host =
      new ScriptedSupervisors(new SerialExecutor(), clock, event -> {});
  private final List<ScriptedChannel> dials = host.opened();

  /** The attempt a call's walk was told it took part in; -1 for none. */
  private static final class Seen implements AttemptWitness {
    long attempt = -1;

    @Override
    public void tookPart(long attempt) {
      this.attempt = attempt;
    }
  }

  @AfterEach
  void stop() {
    host.events().close();
  }

  private static Candidate candidate(Transport transport) {
    return new Candidate(
        Endpoint.parse("tcp -h 127.0.0.1 -p 7001"),
        transport,
        new InetSocketAddress("127.0.0.1", 7001),
        null,
        null);
  }

  private static CompletableFuture<RequestChannel> firstRound(
      ConnectionSupervisor s, Candidate c, Seen seen) {
    return s.obtain(c, false, 0, -1, seen);
  }

  private static CompletableFuture<RequestChannel> laterRound(
      ConnectionSupervisor s, Candidate c, Seen seen) {
    return s.obtain(c, false, 0, seen.attempt, seen);
  }

  /**
   * Calls that start one after another, each while the previous call's second round redials the
   * dead key, as a crowd of callers in a loop does: each joins an on-demand attempt, so each may
   * redial in its own second round. The clock never moves, so every dial is a call's, none the
   * backoff's: the contract allows the first walk's two.
   */
  @Test
  void callsThatEachJoinThePreviousCallsRedialDoNotDialOncePerCall() {
    Candidate c = candidate(new dev.tether.transport.LocalTransport());
    ConnectionSupervisor s = new ConnectionSupervisor(host, c.key(""), c, BACKOFF);
    Seen previous = new Seen();
    firstRound(s, c, previous);
    dials.get(0).failsToConnect(new ConnectFailedException("refused"));

    for (int call = 1; call <= 6; call++) {
      laterRound(s, c, previous); // the previous call's second round
      Seen next = new Seen();
      firstRound(s, c, next); // a new call starts while that redial is in flight
      dials.get(dials.size() - 1).failsToConnect(new ConnectFailedException("refused"));
      previous = next;
    }
    laterRound(s, c, previous);

    assertThat(dials)
        .as("dials by 7 calls with no backoff delay elapsed (backing off throughout)")
        .hasSizeLessThanOrEqualTo(2);
  }

  /**
   * A call waiting for ready on a secure key that backs off, when the client's TLS credentials
   * change: the key forgets its streak and goes IDLE, and the waiting call must be dialled for (or
   * told), not left waiting for an attempt that no longer comes.
   */
  @Test
  void aCallWaitingForReadyIsNotStrandedWhenCredentialsChangeDuringTheBackoff() {
    Candidate c = candidate(new SecureStub());
    ConnectionSupervisor s = new ConnectionSupervisor(host, c.key(""), c, BACKOFF);
    firstRound(s, c, new Seen());
    dials.get(0).failsToConnect(new ConnectFailedException("handshake failed: bad certificate"));

    CompletableFuture<RequestChannel> waiting = s.obtain(c, true, 0);
    assertThat(waiting).isNotDone();
    s.onCredentialsChanged();
    clock.forward(Duration.ofSeconds(60));

    assertThat(waiting.isDone() || dials.size() > 1)
        .as("the waiting call was dialled for or ended (dials: %d)", dials.size())
        .isTrue();
  }

  /**
   * Two later rounds of the same call racing (a hedge and the call's retry both redialling): the
   * key has at most one dial in flight.
   */
  @Test
  void twoRedialsAfterTheSameFailedAttemptStartOneDial() {
    Candidate c = candidate(new dev.tether.transport.LocalTransport());
    ConnectionSupervisor s = new ConnectionSupervisor(host, c.key(""), c, BACKOFF);
    Seen one = new Seen();
    firstRound(s, c, one);
    dials.get(0).failsToConnect(new ConnectFailedException("refused"));
    long failedAttempt = one.attempt;

    List<CompletableFuture<RequestChannel>> rounds = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      rounds.add(s.obtain(c, false, 0, failedAttempt, new Seen()));
    }

    assertThat(dials).hasSize(2);
    dials.get(1).connects(null);
    assertThat(rounds).allMatch(f -> f.isDone() && !f.isCompletedExceptionally());
  }

  /**
   * A redial whose attempt the backoff's own schedule had already replaced (the scheduled attempt
   * runs and fails before the call's next round): the round meets that failure, no third dial.
   */
  @Test
  void aRoundAfterTheScheduledAttemptFailedMeetsItWithoutDialling() {
    Candidate c = candidate(new dev.tether.transport.LocalTransport());
    ConnectionSupervisor s = new ConnectionSupervisor(host, c.key(""), c, BACKOFF);
    Seen call = new Seen();
    firstRound(s, c, call);
    dials.get(0).failsToConnect(new ConnectFailedException("refused"));
    s.obtain(c); // someone asked: the schedule dials
    clock.forward(Duration.ofMillis(100));
    dials.get(1).failsToConnect(new ConnectFailedException("refused again"));

    CompletableFuture<RequestChannel> met = laterRound(s, c, call);

    assertThat(met).isCompletedExceptionally();
    assertThat(dials).hasSize(2);
  }

  /** A transport that says it is secure and never dials: the supervisor only asks isSecure. */
  private static final class SecureStub implements Transport {
    @Override
    public String name() {
      return "ssl";
    }

    @Override
    public boolean isSecure() {
      return true;
    }

    @Override
    public boolean isDatagram() {
      return false;
    }

    @Override
    public SocketAddress address(String host, int port) {
      return new InetSocketAddress(host, port);
    }

    @Override
    public ChannelFuture connect(
        SocketAddress remote, Duration connectTimeout, ChannelHandler handler) {
      throw new UnsupportedOperationException("scripted");
    }

    @Override
    public ChannelFuture bind(SocketAddress local, ChannelHandler childHandler) {
      throw new UnsupportedOperationException("scripted");
    }
  }
}
