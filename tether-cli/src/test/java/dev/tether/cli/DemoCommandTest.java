package dev.tether.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class DemoCommandTest {
  private static final String LOST_AFTER_SEND = "ConnectionLostException mayHaveExecuted=true";

  /**
   * The frozen-peer verdict with the detection in milliseconds, as the test's short heartbeat gives
   * it.
   */
  private static final Pattern DETECTED =
      Pattern.compile(
          "PASS  a frozen peer is detected within idleTimeout \\+ readerIdle: detected after (\\d+) ms;"
              + " bound idleTimeout 600 ms \\+ readerIdle 200 ms = 800 ms");

  @Test
  void abruptStopDemoCompletesAndItsCountsAddUp() {
    CliRun run =
        CliRun.run("demo", "--scenario", "abrupt-stop", "--seconds", "2", "--callers", "4");

    assertThat(run.exitCode()).as(run.err()).isZero();
    DemoSummary s = DemoSummary.parse(run.out());
    assertCountsAddUp(s);
    assertThat(s.serverStates())
        .containsEntry("server-1", "running")
        .containsEntry("server-3", "running");
    assertThat(s.serverStates().get("server-2")).startsWith("closed at ");
    assertThat(run.out()).contains("server-2 closed abruptly").contains("callers stopped");
  }

  @Test
  void anIncrementCaughtByTheCrashIsReportedAsMayHaveExecutedNeverAsDone() {
    CliRun run = CliRun.run("demo", "--seconds", "2", "--scenario", "crash-during-increment");

    assertThat(run.exitCode()).as(run.err()).isZero();
    DemoSummary s = DemoSummary.parse(run.out());
    assertCountsAddUp(s);
    assertThat(run.out())
        .contains("server-2 closed abruptly while an increment it had executed waited to reply");
    // The caught increment ran, its caller was told it may have, and nobody was told it was done.
    assertThat(s.failures().get("ConnectionLostException mayHaveExecuted=true")).isPositive();
    assertThat(s.incrementsExecuted()).isGreaterThan(s.incrementsAcknowledged());
    assertThat(s.servers().get("server-2")[2]).as("server-2 calls without an answer").isPositive();
  }

  @Test
  void steadyDemoStopsNoServer() {
    CliRun run = CliRun.run("demo", "--seconds", "1", "--callers", "2", "--scenario", "steady");

    assertThat(run.exitCode()).as(run.err()).isZero();
    DemoSummary s = DemoSummary.parse(run.out());
    assertCountsAddUp(s);
    assertThat(s.serverStates().values()).containsOnly("running");
  }

  @Test
  void anUnknownScenarioIsBadInputAndTheKnownOnesAreListed() {
    CliRun run = CliRun.run("demo", "--scenario", "meteor-strike");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .contains("unknown scenario 'meteor-strike'")
        .contains("abrupt-stop")
        .contains("graceful-stop")
        .contains("steady");
  }

  @Test
  void secondsOutOfRangeAreBadInput() {
    CliRun run = CliRun.run("demo", "--seconds", "0");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("--seconds must be within 1..600");
  }

  @Test
  void aRollingRestartOfEveryServerFailsNoCallAndRunsNoIncrementTwice() {
    CliRun run = CliRun.run("demo", "--scenario", "rolling-restart", "--seconds", "3");

    assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
    assertThat(run.out())
        .contains("3 servers on loopback, 8 callers, 3 s; scenario rolling-restart");
    DemoSummary s = DemoSummary.parse(run.out());
    assertCountsAddUp(s);
    for (String server : List.of("server-1", "server-2", "server-3")) {
      assertThat(run.out())
          .contains(server + " stopped gracefully", server + " restarted on the same port");
      assertThat(s.serverStates().get(server)).startsWith("restarted at ");
    }
    assertThat(s.failed()).as("failed calls").isZero();
    assertThat(s.incrementsExecuted())
        .as("executed increments")
        .isEqualTo(s.incrementsAcknowledged());
    assertThat(s.verdicts()).containsOnlyKeys("no call fails", "no increment runs twice");
    assertThat(s.verdicts().get("no call fails"))
        .isEqualTo(String.format(Locale.ROOT, "PASS 0 of %,d calls failed", s.total()));
    assertThat(s.verdicts().get("no increment runs twice"))
        .startsWith("PASS ")
        .endsWith("= 0 duplicates");
    assertThat(s.verdict()).isEqualTo("PASS: 2 of 2 expectations met");
  }

  @Test
  void abruptKillsFailNoIdempotentCallAndEveryFailedIncrementSaysItMayHaveRun() {
    CliRun run = CliRun.run("demo", "--scenario", "abrupt-kills", "--seconds", "3");

    assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
    assertThat(run.out()).contains("8 callers, 3 s; scenario abrupt-kills");
    DemoSummary s = DemoSummary.parse(run.out());
    assertCountsAddUp(s);
    for (String server : List.of("server-1", "server-2", "server-3")) {
      assertThat(run.out())
          .contains(server + " closed abruptly", server + " restarted on the same port");
    }
    // The scenario's three expectations, checked here from the printed figures, not only the
    // verdicts.
    assertThat(s.idempotentCalls()[2]).as("failed idempotent calls").isZero();
    assertThat(s.notIdempotentFailures())
        .allSatisfy(
            (kind, n) ->
                assertThat(n)
                    .as("increments failed with %s", kind)
                    .isEqualTo(kind.equals(LOST_AFTER_SEND) ? n : 0L));
    long lostAfterSend = s.notIdempotentFailures().getOrDefault(LOST_AFTER_SEND, 0L);
    assertThat(s.incrementsExecuted())
        .isLessThanOrEqualTo(s.incrementsAcknowledged() + lostAfterSend);
    assertThat(s.idempotentExecuted())
        .as("idempotent calls ran at least once each")
        .isGreaterThanOrEqualTo(s.idempotentAcknowledged());
    assertThat(s.verdicts().values()).hasSize(3).allSatisfy(v -> assertThat(v).startsWith("PASS "));
    assertThat(s.verdict()).isEqualTo("PASS: 3 of 3 expectations met");
  }

  @Test
  void aFrozenPeerIsDetectedByTheHeartbeatWithinIdleTimeoutPlusReaderIdle() {
    CliRun run =
        CliRun.run(
            "demo",
            "--scenario",
            "frozen-peer",
            "--heartbeat-reader-idle",
            "200ms",
            "--heartbeat-idle-timeout",
            "600ms",
            "--freeze-after",
            "500ms");

    assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
    assertThat(run.out())
        .contains(
            "overridden: tether.heartbeat.idleTimeout=600ms, tether.heartbeat.readerIdle=200ms")
        .contains("fault proxy frozen")
        .contains("the pending increment failed after ")
        .contains("lost after increment was sent: heartbeat: nothing read for ")
        .contains("the connection's state became CLOSED after ")
        .contains("verdict      PASS: 1 of 1 expectations met");
    Matcher detected = DETECTED.matcher(run.out());
    assertThat(detected.find()).as(run.out()).isTrue();
    assertThat(Long.parseLong(detected.group(1)))
        .as("ms from freeze to detection")
        .isPositive()
        .isLessThanOrEqualTo(800);
  }

  @Test
  void heartbeatOptionsAreRefusedByTheClusterScenarios() {
    CliRun run = CliRun.run("demo", "--scenario", "steady", "--heartbeat-idle-timeout", "1s");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .contains("--heartbeat-idle-timeout is for frozen-peer, not for scenario steady");
  }

  @Test
  void theFrozenPeerTimesItselfAndRefusesTheLoadOptions() {
    CliRun run = CliRun.run("demo", "--scenario", "frozen-peer", "--seconds", "3");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .contains("--seconds is for the cluster scenarios, not for scenario frozen-peer");
  }

  @Test
  void aHeartbeatThatIsOffCannotBeMeasured() {
    CliRun run = CliRun.run("demo", "--scenario", "frozen-peer", "--heartbeat-idle-timeout", "0");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("--heartbeat-idle-timeout must be a positive duration");
  }

  /** The invariants every run must satisfy, whatever the timing. */
  private static void assertCountsAddUp(DemoSummary s) {
    assertThat(s.total()).isPositive();
    assertThat(s.ok() + s.failed()).as("ok + failed = total").isEqualTo(s.total());
    for (int column = 0; column < 3; column++) {
      int c = column;
      assertThat(s.operations().values().stream().mapToLong(v -> v[c]).sum())
          .as("operations sum up to the 'all' row, column %d", c)
          .isEqualTo(s.allCalls()[c]);
      assertThat(s.servers().values().stream().mapToLong(v -> v[c]).sum())
          .as("servers sum up to their 'all' row, column %d", c)
          .isEqualTo(s.allServers()[c]);
    }
    assertThat(Arrays.stream(s.operations().get("put")).sum()).isPositive();
    assertThat(s.failures().values().stream().mapToLong(Long::longValue).sum())
        .as("failures by exception add up to failed calls")
        .isEqualTo(s.failed());
    assertThat(s.allServers()[1]).as("each ok reply names its server").isEqualTo(s.ok());
    assertThat(s.allServers()[0]).as("every ok call ran somewhere").isGreaterThanOrEqualTo(s.ok());
    for (long[] server : s.servers().values()) {
      assertThat(server[2])
          .as("served - answered ok")
          .isEqualTo(server[0] - server[1])
          .isNotNegative();
    }
    assertThat(s.counter())
        .as("the counter holds every executed increment")
        .isEqualTo(s.incrementsExecuted());
    assertThat(s.incrementsAcknowledged()).isEqualTo(s.operations().get("increment")[1]);
    assertThat(s.incrementsAcknowledged()).isLessThanOrEqualTo(s.incrementsExecuted());
    assertThat(s.incrementCheckPassed()).as("the summary's own at-most-once check").isTrue();
    assertThat(s.idempotentAcknowledged())
        .as("idempotent ok calls")
        .isEqualTo(s.idempotentCalls()[1]);
    assertThat(s.idempotentExecuted() + s.incrementsExecuted())
        .as("executions by kind add up to served")
        .isEqualTo(s.allServers()[0]);
    assertThat(s.idempotentFailures().values().stream().mapToLong(Long::longValue).sum())
        .as("idempotent failures by exception")
        .isEqualTo(s.idempotentCalls()[2]);
    assertThat(s.notIdempotentFailures().values().stream().mapToLong(Long::longValue).sum())
        .as("increment failures by exception")
        .isEqualTo(s.operations().get("increment")[2]);
  }
}
