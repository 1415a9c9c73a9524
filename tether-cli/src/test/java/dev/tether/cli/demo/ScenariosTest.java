package dev.tether.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ScenariosTest {

  @Test
  void theDefaultScenarioComesFirstAndNamesAreUnique() {
    assertThat(Scenarios.ALL.get(0)).isSameAs(Scenarios.ABRUPT_STOP);
    assertThat(Scenarios.names()).doesNotHaveDuplicates();
    assertThat(Scenarios.byName("steady")).contains(Scenarios.STEADY);
    assertThat(Scenarios.byName("nope")).isEmpty();
  }

  @Test
  void stepsMustBeInTimeOrderAndWithinTheRun() {
    Scenario.Action nothing = cluster -> {};
    assertThatThrownBy(() -> new Scenario("x", "x",
        List.of(new Scenario.Step(0.6, nothing), new Scenario.Step(0.4, nothing))))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Scenario.Step(1.5, nothing)).isInstanceOf(IllegalArgumentException.class);
  }
}
