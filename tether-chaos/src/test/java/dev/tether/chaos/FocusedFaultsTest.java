package dev.tether.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One fault at a time, in a focused chaos run of a few seconds (the same load, ledgers and
 * connection checks as the full run, without its warm-up and JVM leak checks): each fault keeps the
 * ledger's promises on its own, so a failure here names the fault.
 */
class FocusedFaultsTest {
  private static final long SEED = 4042;

  /**
   * The node each fault hits: not the primary (node 0), as the plan has it; a leader cut-off hits
   * whichever node the election chose.
   */
  private static final int NODE = 2;

  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  void aSickNodeIsEjectedWithinAFewDozenCallsAndNoCallIsLostOrRunTwice() throws Exception {
    ChaosReport report = run(FaultKind.SICK_NODE);

    assertThat(report.violations()).isEmpty();
    assertThat(report.sickNodes().sicknesses())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.ejectedAfterNanos()).as("ejected while sick").isNotNegative();
              assertThat(s.answersBefore()).as("its errors before the ejection").isPositive();
              assertThat(s.answersAfter())
                  .as("its errors after the ejection")
                  .isLessThanOrEqualTo(SickNodes.ANSWERS_AFTER_EJECTION);
            });
    assertThat(report.ledger().sickAnswersBalanced())
        .isEqualTo(
            report.sickNodes().sicknesses().get(0).answersBefore()
                + report.sickNodes().sicknesses().get(0).answersAfter());
  }

  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  void aMisdeployedRestartSendsItsCallsToPeersAndEachRunsOnce() throws Exception {
    ChaosReport report = run(FaultKind.MISDEPLOYED_RESTART);

    assertThat(report.violations()).isEmpty();
    assertThat(report.ledger().notFoundBalanced()).isZero();
    assertThat(report.ledger().duplicates()).isZero();
    assertThat(report.clientEvents())
        .as("calls that met the misdeployed node and went on to a peer")
        .containsKey(ChaosRun.RETRY_AFTER_NOT_FOUND);
  }

  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  void aLeaderCutOffFromZooKeeperTakesNoWriteOnceTheNewLeaderIsAnnounced() throws Exception {
    ChaosReport report = run(FaultKind.LEADER_CUT_OFF, Duration.ofSeconds(10), 5);

    assertThat(report.violations()).isEmpty();
    assertThat(report.leaderCutOffs().cuts())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.deposedBefore()).as("writes on the leader before the cut").isPositive();
              assertThat(c.deposedAfter()).as("writes on it after the new leader").isZero();
              assertThat(c.sessionCallsOnDeposedAfter())
                  .as("session calls on it after the new leader")
                  .isZero();
              assertThat(c.newLeaderAfter()).as("writes on the new leader").isPositive();
            });
  }

  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  void aHostileStreamClientIsCutOffAndHoldsTheServerToItsBoundsWhileTheOtherStreamsLoseNothing()
      throws Exception {
    ChaosReport report = run(FaultKind.HOSTILE_STREAM_CLIENT);

    assertThat(report.violations()).isEmpty();
    assertThat(report.hostileAttacks())
        .singleElement()
        .satisfies(
            a -> {
              assertThat(a.itemsPastCredit()).isEqualTo("CLOSED_AS_PROTOCOL_ERROR");
              assertThat(a.reusedId()).isEqualTo("CLOSED_AS_PROTOCOL_ERROR");
              assertThat(a.growth()).isLessThanOrEqualTo(HostileClients.GROWTH_ALLOWANCE_BYTES);
            });
    assertThat(report.streams().completed()).as("well-behaved streams completed").isPositive();
  }

  /**
   * A 7 s run of 5 nodes at 300 calls/s and 2 streams, {@code kind} on one node from 1.5 s to 4.5
   * s.
   */
  private static ChaosReport run(FaultKind kind) throws InterruptedException {
    return run(kind, Duration.ofSeconds(7), 3);
  }

  /**
   * A run of {@code duration}, 5 nodes at 300 calls/s and 2 streams, {@code kind} on one node from
   * 1.5 s for {@code holdSeconds}.
   */
  private static ChaosReport run(FaultKind kind, Duration duration, int holdSeconds)
      throws InterruptedException {
    ChaosSettings settings =
        new ChaosSettings(
            SEED,
            duration,
            300,
            8,
            5,
            Duration.ofSeconds(8),
            Duration.ofSeconds(1),
            2,
            ChaosRun.NODE_RECONNECT_POLICY,
            1,
            2);
    FaultStep step =
        new FaultStep(
            TimeUnit.MILLISECONDS.toNanos(1500),
            kind,
            NODE,
            TimeUnit.SECONDS.toNanos(holdSeconds),
            0);
    return ChaosRun.focused(settings, System.out, FaultPlan.of(List.of(step), 0)).run();
  }
}
