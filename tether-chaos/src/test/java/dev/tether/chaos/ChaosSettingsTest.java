package dev.tether.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class ChaosSettingsTest {
  @Test
  void readsTheSoakLengthAndTheSeedToReplay() {
    Properties p = new Properties();
    p.setProperty("chaos.duration", "30m");
    p.setProperty("chaos.seed", "-5467256178307830738");
    p.setProperty("chaos.rate", "120");

    ChaosSettings s = ChaosSettings.from(p);

    assertThat(s.duration()).isEqualTo(Duration.ofMinutes(30));
    assertThat(s.seed()).isEqualTo(-5467256178307830738L);
    assertThat(s.ratePerSecond()).isEqualTo(120);
    assertThat(s.nodes()).isEqualTo(5);
    assertThat(s.nodeReconnectPolicy()).isEqualTo("standard");
  }

  @Test
  void blankOrAbsentPropertiesGiveTheShortDenseRun() {
    Properties p = new Properties();
    p.setProperty("chaos.duration", "");
    p.setProperty("chaos.rate", " ");

    ChaosSettings s = ChaosSettings.from(p);

    assertThat(s.duration()).isEqualTo(Duration.ofSeconds(40));
    assertThat(s.ratePerSecond()).isEqualTo(500);
    assertThat(s.workers()).isEqualTo(16);
    assertThat(s.faultDensity()).isEqualTo(3);
    assertThat(s.streams()).isEqualTo(6);
    assertThat(s.drawsEveryFaultKind()).isTrue();
  }

  @Test
  void streamsCanBeTurnedOffButNotMadeNegative() {
    assertThat(ChaosSettings.from(props("chaos.streams", "0")).streams()).isZero();
    assertThatThrownBy(() -> ChaosSettings.from(props("chaos.streams", "-1")))
        .hasMessageContaining("-1 streams");
  }

  @Test
  void readsTheThreeMinuteRunOfTheLongProfile() {
    Properties p = new Properties();
    p.setProperty("chaos.duration", "180s");
    p.setProperty("chaos.rate", "200");
    p.setProperty("chaos.workers", "8");
    p.setProperty("chaos.faultDensity", "1");

    ChaosSettings s = ChaosSettings.from(p);

    assertThat(s.duration()).isEqualTo(Duration.ofMinutes(3));
    assertThat(s.workers()).isEqualTo(8);
    assertThat(s.faultDensity()).isEqualTo(1);
    assertThatThrownBy(() -> ChaosSettings.from(props("chaos.faultDensity", "0.5")))
        .hasMessageContaining("density");
  }

  @Test
  void aReplayShorterThanTheDefaultRunMayMissAFaultKind() {
    assertThat(ChaosSettings.from(props("chaos.duration", "20s")).drawsEveryFaultKind()).isFalse();
  }

  private static Properties props(String key, String value) {
    Properties p = new Properties();
    p.setProperty(key, value);
    return p;
  }

  @Test
  void parsesDurationsWithOrWithoutAUnit() {
    assertThat(ChaosSettings.parseDuration("180s")).isEqualTo(Duration.ofSeconds(180));
    assertThat(ChaosSettings.parseDuration("180")).isEqualTo(Duration.ofSeconds(180));
    assertThat(ChaosSettings.parseDuration("1.5h")).isEqualTo(Duration.ofMinutes(90));
    assertThat(ChaosSettings.parseDuration("15min")).isEqualTo(Duration.ofMinutes(15));
    assertThatThrownBy(() -> ChaosSettings.parseDuration("soon")).hasMessageContaining("soon");
    assertThatThrownBy(() -> ChaosSettings.parseDuration("3 weeks"))
        .hasMessageContaining("3 weeks");
  }

  @Test
  void countsAnOutageOnlyWhenEveryNodeIsDown() {
    NodeHealth health = new NodeHealth(3);
    health.markDown(0);
    health.markDown(1);
    assertThat(health.noneUp()).isFalse();
    health.markDown(2);
    health.markDown(2);
    assertThat(health.noneUp()).isTrue();
    health.markUp(1);
    health.markDown(1);

    assertThat(health.outages()).isEqualTo(2);
  }
}
