package dev.tether.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class FaultPlanTest {
  private static final Duration RUN = Duration.ofMinutes(3);

  /** The default build's short, dense run. */
  private static final Duration SHORT_RUN = Duration.ofSeconds(40);

  private static final double DENSE = 3;

  @Test
  void sameSeedGivesTheSameFaults() {
    FaultPlan a = FaultPlan.generate(new Random(42), RUN, 5, 2);
    FaultPlan b = FaultPlan.generate(new Random(42), RUN, 5, 2);
    FaultPlan c = FaultPlan.generate(new Random(43), RUN, 5, 2);

    assertThat(a.steps()).isEqualTo(b.steps());
    assertThat(a.steps()).isNotEqualTo(c.steps());
  }

  @Test
  void drawsEveryKindOfFaultInAThreeMinuteRun() {
    for (long seed = 0; seed < 20; seed++) {
      FaultPlan plan = FaultPlan.generate(new Random(seed), RUN, 5, 2);
      assertThat(plan.countByKind())
          .as("seed %d", seed)
          .allSatisfy(
              (kind, n) ->
                  assertThat(n)
                      .as(kind.label)
                      .isEqualTo(kind.needsZooKeeper() ? 0 : Math.max(n, 1)));
    }
  }

  @Test
  void drawsEveryKindOfFaultInAShortDenseRun() {
    for (long seed = 0; seed < 200; seed++) {
      FaultPlan plan = FaultPlan.generate(new Random(seed), SHORT_RUN, 5, 2, DENSE);
      assertThat(plan.countByKind())
          .as("seed %d", seed)
          .allSatisfy(
              (kind, n) ->
                  assertThat(n)
                      .as(kind.label)
                      .isEqualTo(kind.needsZooKeeper() ? 0 : Math.max(n, 1)));
    }
  }

  @Test
  void aDenseRunBeginsFaultsMoreOftenThanThePlainPace() {
    int plain = 0;
    int dense = 0;
    for (long seed = 0; seed < 20; seed++) {
      plain += FaultPlan.generate(new Random(seed), SHORT_RUN, 5, 2).steps().size();
      dense += FaultPlan.generate(new Random(seed), SHORT_RUN, 5, 2, DENSE).steps().size();
    }

    // Not three times: exclusive faults (a rolling restart's 7.5 s, a failover) and sick nodes (up
    // to 9 s) last as long at any density, and both runs must meet all ten kinds of fault.
    assertThat(dense).isGreaterThan(plain * 4 / 3);
  }

  @Test
  void neverTakesMoreThanMaxDownNodesAndHealsBeforeTheEnd() {
    for (long seed = 0; seed < 50; seed++) {
      assertKeepsTheClusterAnswerable(
          seed, FaultPlan.generate(new Random(seed), RUN, 5, 2).steps(), RUN);
    }
  }

  @Test
  void aDenseRunKeepsTheSameLimits() {
    for (long seed = 0; seed < 50; seed++) {
      assertKeepsTheClusterAnswerable(
          seed, FaultPlan.generate(new Random(seed), SHORT_RUN, 5, 2, DENSE).steps(), SHORT_RUN);
    }
  }

  private static void assertKeepsTheClusterAnswerable(
      long seed, List<FaultStep> steps, Duration run) {
    for (FaultStep s : steps) {
      assertThat(s.healNanos()).isLessThanOrEqualTo(run.toNanos());
      long t = s.atNanos();
      long down =
          steps.stream()
              .filter(o -> o.kind().takesNodeDown && o.atNanos() <= t && o.healNanos() > t)
              .count();
      // A sick node may meet an exclusive fault too (a rolling restart, a failover to it).
      long onNode =
          steps.stream()
              .filter(o -> o.node() == s.node() && o.atNanos() <= t && o.healNanos() > t)
              .filter(o -> !o.kind().isExclusive() && !s.kind().isExclusive())
              .count();
      assertThat(down)
          .as("seed %d at %d ms", seed, TimeUnit.NANOSECONDS.toMillis(t))
          .isLessThanOrEqualTo(2);
      assertThat(onNode).as("faults on node %d at once", s.node()).isLessThanOrEqualTo(1);
      if (s.kind().isExclusive()) {
        assertThat(
                steps.stream()
                    .filter(
                        o ->
                            o != s
                                && o.kind() != FaultKind.SICK_NODE
                                && o.atNanos() < s.healNanos()
                                && o.healNanos() > s.atNanos()))
            .as("faults during the %s at %d ms", s.kind().label, TimeUnit.NANOSECONDS.toMillis(t))
            .isEmpty();
      }
    }
  }

  @Test
  void primaryFailoversAndHandoversHitTheAnnouncedPrimaryThenTheNext() {
    List<FaultStep> failovers =
        FaultPlan.generate(new Random(7), Duration.ofMinutes(10), 5, 2).steps().stream()
            .filter(s -> s.kind().movesThePrimary())
            .toList();

    assertThat(failovers).hasSizeGreaterThan(2);
    for (int i = 0; i < failovers.size(); i++) {
      assertThat(failovers.get(i).node()).isEqualTo(i % 5);
    }
  }

  @Test
  void sickNodesAndMisdeployedRestartsSpareThePrimaryAndSickNodesComeApart() {
    for (long seed = 0; seed < 50; seed++) {
      FaultPlan plan = FaultPlan.generate(new Random(seed), SHORT_RUN, 5, 2, DENSE);
      int primary = plan.firstPrimary();
      long lastSick = Long.MIN_VALUE;
      for (FaultStep s : plan.steps()) {
        if (s.kind().sparesThePrimary()) {
          assertThat(s.node())
              .as("seed %d: %s on the primary", seed, s.kind().label)
              .isNotEqualTo(primary);
        }
        if (s.kind() == FaultKind.SICK_NODE) {
          if (lastSick != Long.MIN_VALUE) {
            assertThat(s.atNanos() - lastSick)
                .as("seed %d: between two sick nodes", seed)
                .isGreaterThanOrEqualTo(FaultPlan.SICK_SPACING_NANOS);
          }
          lastSick = s.atNanos();
        }
        if (s.kind().movesThePrimary()) {
          primary = (primary + 1) % 5;
        }
      }
    }
  }
}
