package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.ConnectFailedException;
import dev.tether.Endpoint;
import dev.tether.internal.Backoff;
import dev.tether.internal.SerialExecutor;
import dev.tether.testing.ManualClock;
import dev.tether.transport.LocalTransport;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a call's later round may dial, as one key's supervisor decides it on a manual clock with
 * connections the test fails by hand: a call that took part in the dial that failed redials the key
 * once, joining or meeting any attempt made since rather than starting another.
 */
class SupervisorRedialTest {
  private static final Backoff BACKOFF =
      new Backoff(Duration.ofMillis(100), 2.0, Duration.ofSeconds(10), 0);

  private final ManualClock clock = new ManualClock(1_000_000_000L);
  private final ScriptedSupervisors host =
      new ScriptedSupervisors(new SerialExecutor(), clock, event -> {});
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

  private CompletableFuture<RequestChannel> firstRound(Seen seen) {
    return supervisor.obtain(candidate, false, 0, -1, seen);
  }

  private CompletableFuture<RequestChannel> laterRound(Seen seen) {
    return supervisor.obtain(candidate, false, 0, seen.attempt, seen);
  }

  @Test
  void aCallThatDialledAndSawTheKeyFailDialsItAgainInItsNextRound() {
    Seen call = new Seen();
    firstRound(call);
    dials.get(0).failsToConnect(new ConnectFailedException("refused"));
    assertThat(call.attempt).isEqualTo(1);

    CompletableFuture<RequestChannel> again = laterRound(call);

    assertThat(dials).as("the round dialled although the key backs off").hasSize(2);
    assertThat(call.attempt).isEqualTo(2);
    dials.get(1).connects(null);
    assertThat(again).isCompletedWithValue(dials.get(1));
  }

  @Test
  void aCallThatStartsWhileTheKeyBacksOffNeitherDialsNorMayRedial() {
    firstRound(new Seen());
    dials.get(0).failsToConnect(new ConnectFailedException("refused"));

    Seen late = new Seen();
    CompletableFuture<RequestChannel> refused = firstRound(late);

    assertThat(refused).isCompletedExceptionally();
    assertThat(late.attempt).as("took part in no dial").isEqualTo(-1);
    assertThat(dials).hasSize(1);
  }

  @Test
  void aRoundJoinsTheRedialAnotherCallStartedInsteadOfStartingASecond() {
    Seen first = new Seen();
    Seen second = new Seen();
    firstRound(first);
    firstRound(second);
    dials.get(0).failsToConnect(new ConnectFailedException("refused"));

    laterRound(first);
    CompletableFuture<RequestChannel> joined = laterRound(second);

    assertThat(dials).hasSize(2);
    assertThat(second.attempt).isEqualTo(2);
    dials.get(1).connects(null);
    assertThat(joined).isCompletedWithValue(dials.get(1));
  }

  @Test
  void aRoundAfterAnotherCallsRedialFailedMeetsThatFailureWithoutDialling() {
    Seen first = new Seen();
    Seen second = new Seen();
    firstRound(first);
    firstRound(second);
    dials.get(0).failsToConnect(new ConnectFailedException("refused"));
    laterRound(first);
    dials.get(1).failsToConnect(new ConnectFailedException("refused again"));

    CompletableFuture<RequestChannel> met = laterRound(second);

    assertThat(met).isCompletedExceptionally();
    assertThat(dials).hasSize(2);
    assertThat(second.attempt).as("saw the later attempt fail").isEqualTo(2);
  }

  @Test
  void aCallThatJoinedTheBackoffsOwnAttemptMayNotRedialAfterIt() {
    firstRound(new Seen());
    dials.get(0).failsToConnect(new ConnectFailedException("refused"));
    supervisor.obtain(candidate); // asked during the delay: the scheduled attempt runs
    clock.forward(Duration.ofMillis(100));
    assertThat(dials).hasSize(2);

    Seen joining = new Seen();
    firstRound(joining);
    dials.get(1).failsToConnect(new ConnectFailedException("refused again"));

    assertThat(joining.attempt).isEqualTo(-1);
  }
}
