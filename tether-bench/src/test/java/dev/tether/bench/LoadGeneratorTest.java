package dev.tether.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.bench.FakeSystem.Behaviour;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class LoadGeneratorTest {

  private final LoadGenerator generator =
      new LoadGenerator(
          Duration.ofMillis(50), Duration.ofMillis(200), Duration.ofMillis(300), NanoClock.SYSTEM);

  @Test
  void everySlotKeepsCallingUntilTheMeasuredPhaseEnds() throws Exception {
    Scenario scenario = new Scenario(FakeSystem.spec("fake", "", Behaviour.ECHO), 64, 8);

    RunResult result = generator.run(scenario);

    assertThat(result.clean()).isTrue();
    assertThat(result.calls()).isGreaterThan(8);
    assertThat(result.callsPerSecond()).isPositive();
    assertThat(result.p50Micros()).isPositive().isLessThanOrEqualTo(result.p99Micros());
    assertThat(result.p99Micros()).isLessThanOrEqualTo(result.p999Micros());
  }

  @Test
  void failedCallsStopTheirSlotsAndAreReported() throws Exception {
    Scenario scenario = new Scenario(FakeSystem.spec("fake", "", Behaviour.FAIL), 64, 4);

    RunResult result = generator.run(scenario);

    assertThat(result.clean()).isFalse();
    assertThat(result.failedSlots()).isEqualTo(4);
    assertThat(result.calls()).isZero();
    assertThat(result.problem()).contains("scripted failure");
  }

  @Test
  void aResponseThatIsNotTheEchoCountsAsAFailure() throws Exception {
    Scenario scenario = new Scenario(FakeSystem.spec("fake", "", Behaviour.TRUNCATE), 64, 2);

    RunResult result = generator.run(scenario);

    assertThat(result.failedSlots()).isEqualTo(2);
    assertThat(result.problem()).contains("not the echo");
  }

  @Test
  void callsThatNeverReturnEndTheRunAfterTheDrainTimeout() throws Exception {
    Scenario scenario = new Scenario(FakeSystem.spec("fake", "", Behaviour.SILENT), 64, 3);

    RunResult result = generator.run(scenario);

    assertThat(result.clean()).isFalse();
    assertThat(result.calls()).isZero();
    assertThat(result.problem()).startsWith("3 calls did not return");
  }

  @Test
  void aSystemThatCannotStartGivesAResultThatSaysWhy() throws Exception {
    Scenario scenario = new Scenario(FakeSystem.spec("fake", "", Behaviour.BROKEN), 64, 3);

    RunResult result = generator.run(scenario);

    assertThat(result.clean()).isFalse();
    assertThat(result.calls()).isZero();
    assertThat(result.problem())
        .isEqualTo("could not start: IllegalStateException: scripted start failure");
  }
}
