package dev.tether.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ScenariosTest {

  @Test
  void theDefaultScenarioComesFirstAndNamesAreUnique() {
    assertThat(Scenarios.ALL.get(0)).isSameAs(Scenarios.SHOWCASE);
    assertThat(Scenarios.names()).doesNotHaveDuplicates();
    assertThat(Scenarios.byName("steady")).contains(Scenarios.STEADY);
    assertThat(Scenarios.byName("nope")).isEmpty();
  }

  @Test
  void theShowcasesFreezeOutlastsTheHeartbeatAndTwoStatusPageSamplesAndEndsWithinItsPhase() {
    ShowcaseScenario.Phase freeze =
        Scenarios.SHOWCASE.phases().stream()
            .filter(p -> p.name().equals("freeze"))
            .findFirst()
            .orElseThrow();
    assertThat(freeze.steps())
        .extracting(Scenario.Step::atFraction)
        .containsExactly(Scenarios.FREEZE_STARTS, Scenarios.FREEZE_ENDS);
    Duration phase =
        Scenarios.SHOWCASE.defaultDuration().dividedBy(Scenarios.SHOWCASE.phases().size());
    Duration frozen =
        Duration.ofNanos(
            (long) ((Scenarios.FREEZE_ENDS - Scenarios.FREEZE_STARTS) * phase.toNanos()));
    Duration found =
        ShowcaseRun.HEARTBEAT_READER_IDLE
            .plus(ShowcaseRun.HEARTBEAT_IDLE_TIMEOUT)
            .plus(dev.tether.admin.TetherAdmin.SAMPLE_INTERVAL.multipliedBy(2));
    assertThat(frozen).isGreaterThan(found.multipliedBy(2));
    assertThat(Scenarios.FREEZE_ENDS).isLessThan(1.0);
  }

  @Test
  void theRestartKillAndFreezeScenariosAreKnownByName() {
    assertThat(Scenarios.byName("rolling-restart")).contains(Scenarios.ROLLING_RESTART);
    assertThat(Scenarios.byName("abrupt-kills")).contains(Scenarios.ABRUPT_KILLS);
    assertThat(Scenarios.byName("frozen-peer")).contains(Scenarios.FROZEN_PEER);
  }

  @Test
  void theRestartScenariosRunEightCallersAndJudgeNoFailureAndAtMostOnce() {
    assertThat(Scenarios.ROLLING_RESTART.defaultCallers()).isEqualTo(8);
    assertThat(Scenarios.ROLLING_RESTART.expectations())
        .containsExactly(Expectation.NO_CALL_FAILS, Expectation.NO_DUPLICATE_INCREMENTS);
    assertThat(Scenarios.ABRUPT_KILLS.defaultCallers()).isEqualTo(8);
    assertThat(Scenarios.ABRUPT_KILLS.expectations())
        .containsExactly(
            Expectation.IDEMPOTENT_CALLS_NEVER_FAIL,
            Expectation.INCREMENT_FAILURES_ARE_ONLY_LOST_AFTER_SEND,
            Expectation.EXECUTIONS_WITHIN_ACKNOWLEDGED_PLUS_LOST);
    assertThat(Scenarios.STEADY.defaultCallers()).isEqualTo(Scenario.DEFAULT_CALLERS);
    assertThat(Scenarios.STEADY.expectations()).isEmpty();
  }

  @Test
  void stepsMustBeInTimeOrderAndWithinTheRun() {
    Scenario.Action nothing = cluster -> {};
    assertThatThrownBy(
            () ->
                new Scenario(
                    "x",
                    "x",
                    List.of(new Scenario.Step(0.6, nothing), new Scenario.Step(0.4, nothing))))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Scenario.Step(1.5, nothing))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
