package dev.tether.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class DemoCommandTest {

  @Test
  void abruptStopDemoCompletesAndItsCountsAddUp() {
    CliRun run = CliRun.run("demo", "--seconds", "2", "--callers", "4");

    assertThat(run.exitCode()).as(run.err()).isZero();
    DemoSummary s = DemoSummary.parse(run.out());
    assertCountsAddUp(s);
    assertThat(s.serverStates()).containsEntry("server-1", "running")
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
    assertThat(run.out()).contains("server-2 closed abruptly while an increment it had executed waited to reply");
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
    assertThat(run.err()).contains("unknown scenario 'meteor-strike'")
        .contains("abrupt-stop").contains("graceful-stop").contains("steady");
  }

  @Test
  void secondsOutOfRangeAreBadInput() {
    CliRun run = CliRun.run("demo", "--seconds", "0");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("--seconds must be within 1..600");
  }

  /** The invariants every run must satisfy, whatever the timing. */
  private static void assertCountsAddUp(DemoSummary s) {
    assertThat(s.total()).isPositive();
    assertThat(s.ok() + s.failed()).as("ok + failed = total").isEqualTo(s.total());
    for (int column = 0; column < 3; column++) {
      int c = column;
      assertThat(s.operations().values().stream().mapToLong(v -> v[c]).sum())
          .as("operations sum up to the 'all' row, column %d", c).isEqualTo(s.allCalls()[c]);
      assertThat(s.servers().values().stream().mapToLong(v -> v[c]).sum())
          .as("servers sum up to their 'all' row, column %d", c).isEqualTo(s.allServers()[c]);
    }
    assertThat(Arrays.stream(s.operations().get("put")).sum()).isPositive();
    assertThat(s.failures().values().stream().mapToLong(Long::longValue).sum())
        .as("failures by exception add up to failed calls").isEqualTo(s.failed());
    assertThat(s.allServers()[1]).as("each ok reply names its server").isEqualTo(s.ok());
    assertThat(s.allServers()[0]).as("every ok call ran somewhere").isGreaterThanOrEqualTo(s.ok());
    for (long[] server : s.servers().values()) {
      assertThat(server[2]).as("served - answered ok").isEqualTo(server[0] - server[1]).isNotNegative();
    }
    assertThat(s.counter()).as("the counter holds every executed increment").isEqualTo(s.incrementsExecuted());
    assertThat(s.incrementsAcknowledged()).isEqualTo(s.operations().get("increment")[1]);
    assertThat(s.incrementsAcknowledged()).isLessThanOrEqualTo(s.incrementsExecuted());
    assertThat(s.incrementCheckPassed()).as("the summary's own at-most-once check").isTrue();
  }
}
