package dev.tether.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The chaos run of the default build: mixed load against 5 nodes under every kind of fault for
 * {@code chaos.duration} (180 s unless set; the soak: {@code -Dchaos.duration=30m}), replayable with
 * {@code -Dchaos.seed=N}. Its ledger is printed; any broken promise fails it.
 */
class ChaosSuiteTest {
  @Test
  @Timeout(value = 45, unit = TimeUnit.MINUTES)
  void keepsAtMostOnceAndLeaksNothingUnderMixedFaults() throws Exception {
    ChaosSettings settings = ChaosSettings.from(System.getProperties());

    ChaosReport report = new ChaosRun(settings, System.out).run();

    assertThat(report.violations()).as("ledger of seed %d", settings.seed()).isEmpty();
    assertThat(report.ledger().count(Outcome.OK)).as("calls answered").isGreaterThan(0);
    if (settings.duration().toSeconds() >= 120) {
      // A run this long draws every kind of fault; a short one (a replay) may not.
      assertThat(report.faultsInjected()).allSatisfy((kind, n) -> assertThat(n).as(kind.label).isPositive());
    }
  }
}
