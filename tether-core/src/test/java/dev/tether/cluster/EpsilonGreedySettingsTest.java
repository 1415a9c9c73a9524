package dev.tether.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.tether.Tether;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@code tether.lb.epsilon.*}: every knob of the epsilon-greedy strategy, and clear errors for bad
 * values.
 */
class EpsilonGreedySettingsTest {
  private static final long MS = 1_000_000;
  private static final long SECOND = 1_000 * MS;

  private final List<FakeNode> nodes = FakeNode.nodes(2);
  private final FakeNode node = nodes.get(0);

  private static Properties props(String... keyValues) {
    Properties p = new Properties();
    for (int i = 0; i < keyValues.length; i += 2) {
      p.setProperty(keyValues[i], keyValues[i + 1]);
    }
    return p;
  }

  @Test
  void noKeysGiveTheRethinkDbDriversDefaults() {
    EpsilonGreedySettings s = EpsilonGreedySettings.from(new Properties());
    assertThat(s).isEqualTo(EpsilonGreedySettings.defaults());
    assertThat(s.decayDuration()).isEqualTo(Duration.ofMinutes(5));
    assertThat(s.buckets()).isEqualTo(120);
    assertThat(s.calculator()).isEqualTo(EpsilonCalculator.linear());
    assertThat(s.initialEpsilon()).isEqualTo(0.3);
    assertThat(s.minEpsilon()).isEqualTo(0.05);
  }

  @Test
  void everyKeyIsRead() {
    EpsilonGreedySettings s =
        EpsilonGreedySettings.from(
            props(
                "tether.lb.epsilon.decay",
                "1min",
                "tether.lb.epsilon.buckets",
                "60",
                "tether.lb.epsilon.calculator",
                "Polynomial(2.5)",
                "tether.lb.epsilon.initial",
                "0.5",
                "tether.lb.epsilon.floor",
                "0"));
    assertThat(s)
        .isEqualTo(
            new EpsilonGreedySettings(
                Duration.ofMinutes(1), 60, EpsilonCalculator.polynomial(2.5), 0.5, 0.0));
    assertThat(
            EpsilonGreedySettings.from(props("tether.lb.epsilon.calculator", "logarithmic"))
                .calculator())
        .isEqualTo(EpsilonCalculator.logarithmic());
  }

  @Test
  void badValuesFailNamingTheirKey() {
    assertThatThrownBy(() -> EpsilonGreedySettings.from(props("tether.lb.epsilon.decay", "soon")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tether.lb.epsilon.decay");
    assertThatThrownBy(() -> EpsilonGreedySettings.from(props("tether.lb.epsilon.buckets", "many")))
        .hasMessageContaining("tether.lb.epsilon.buckets")
        .hasMessageContaining("whole number");
    assertThatThrownBy(() -> EpsilonGreedySettings.from(props("tether.lb.epsilon.buckets", "0")))
        .hasMessageContaining("tether.lb.epsilon.buckets must be between 1 and 10000: 0");
    assertThatThrownBy(
            () -> EpsilonGreedySettings.from(props("tether.lb.epsilon.calculator", "cubic")))
        .hasMessageContaining(
            "tether.lb.epsilon.calculator: \"cubic\" is not linear, logarithmic or polynomial");
    assertThatThrownBy(
            () ->
                EpsilonGreedySettings.from(props("tether.lb.epsilon.calculator", "polynomial(-1)")))
        .hasMessageContaining("tether.lb.epsilon.calculator")
        .hasMessageContaining("positive, finite exponent");
    assertThatThrownBy(() -> EpsilonGreedySettings.from(props("tether.lb.epsilon.initial", "1.5")))
        .hasMessageContaining("tether.lb.epsilon.initial must be above 0 and at most 1");
    assertThatThrownBy(() -> EpsilonGreedySettings.from(props("tether.lb.epsilon.floor", "0.4")))
        .hasMessageContaining(
            "tether.lb.epsilon.floor must be between 0 and tether.lb.epsilon.initial");
    assertThatThrownBy(
            () ->
                EpsilonGreedySettings.from(
                    props("tether.lb.epsilon.decay", "0", "tether.lb.epsilon.buckets", "10")))
        .hasMessageContaining("tether.lb.epsilon.decay");
  }

  @Test
  void aTetherWithABadEpsilonKeyFailsToBuildNamingTheKey() {
    assertThatThrownBy(
            () -> Tether.builder().property("tether.lb.epsilon.calculator", "quadratic").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tether.lb.epsilon.calculator");
  }

  @Test
  void configuredBucketsSplitTheDecayDuration() {
    // 60 s in 10 buckets: a bucket lasts 6 s, the current one weighs 10, the one before 9.
    EpsilonGreedySelector selector =
        new EpsilonGreedySelector(
            new EpsilonGreedySettings(
                Duration.ofSeconds(60), 10, EpsilonCalculator.linear(), 0.3, 0.05),
            new Random(42));
    selector.onCallFinished(node, 20 * MS, 0);
    selector.onCallFinished(node, 40 * MS, 6 * SECOND);
    assertThat(selector.weightedAverageNanos(node, 6 * SECOND))
        .isCloseTo((9 * 20.0 + 10 * 40.0) / 19 * MS, within(1.0));
    assertThat(selector.weightedAverageNanos(node, 60 * SECOND)).isEqualTo(40.0 * MS);
    assertThat(selector.weightedAverageNanos(node, 66 * SECOND)).isNaN();
  }

  @Test
  void configuredEpsilonStartsAndFloorsWhereTheSettingsSay() {
    EpsilonGreedySelector selector =
        new EpsilonGreedySelector(
            new EpsilonGreedySettings(
                Duration.ofSeconds(10), 10, EpsilonCalculator.linear(), 0.8, 0.2),
            new Random(42));
    assertThat(selector.epsilon()).isEqualTo(0.8);
    selector.pick(nodes, 0);
    selector.pick(nodes, SECOND);
    assertThat(selector.epsilon()).isCloseTo(0.72, within(1e-9));
    selector.pick(nodes, 1_000 * SECOND);
    assertThat(selector.epsilon()).isEqualTo(0.2);
  }

  @Test
  void aFullExploringEpsilonPicksUniformlyWhateverTheLatencies() {
    // initial 1 with floor 1: every pick explores, so a 100x slower node still gets half the calls.
    EpsilonGreedySelector selector =
        new EpsilonGreedySelector(
            new EpsilonGreedySettings(
                Duration.ofMinutes(5), 120, EpsilonCalculator.linear(), 1.0, 1.0),
            new Random(42));
    selector.onCallFinished(nodes.get(0), 1 * MS, 0);
    selector.onCallFinished(nodes.get(1), 100 * MS, 0);
    int[] picks = new int[2];
    for (int i = 0; i < 4_000; i++) {
      picks[selector.pick(nodes, i * MS)]++;
    }
    assertThat(picks[1]).isBetween(1_800, 2_200);
  }

  @Test
  void aSelectorDescribesTheSettingsItLearnsBy() {
    EpsilonGreedySettings s =
        new EpsilonGreedySettings(
            Duration.ofSeconds(30), 30, EpsilonCalculator.logarithmic(), 0.5, 0.1);
    EpsilonGreedySelector selector = new EpsilonGreedySelector(s, new Random(1));
    assertThat(selector.toString())
        .contains("PT30S in 30 buckets")
        .contains("Logarithmic")
        .contains("epsilon 0.5");
  }
}
