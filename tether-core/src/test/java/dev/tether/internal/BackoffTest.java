package dev.tether.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BackoffTest {
  private static List<Long> firstDelaysMillis(Backoff policy, int n) {
    Backoff.Streak streak = policy.newStreak(new Random(1));
    List<Long> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(streak.nextDelayNanos() / 1_000_000);
    }
    return out;
  }

  @Test
  void fixedPresetWaitsTheSamePeriodEveryTime() {
    assertThat(firstDelaysMillis(Backoff.fixed(Duration.ofSeconds(5)), 4))
        .containsExactly(5_000L, 5_000L, 5_000L, 5_000L);
  }

  @Test
  void exponentialPresetDoublesFromThirtySecondsToFifteenMinutes() {
    assertThat(firstDelaysMillis(Backoff.exponential(), 7))
        .containsExactly(30_000L, 60_000L, 120_000L, 240_000L, 480_000L, 900_000L, 900_000L);
  }

  @Test
  void standardPolicyDoublesFromAHundredMillisWithinTwentyPercentJitter() {
    List<Long> delays = firstDelaysMillis(Backoff.standard(), 12);
    long base = 100;
    for (long d : delays) {
      assertThat(d).isBetween((long) (base * 0.8), (long) Math.ceil(base * 1.2));
      base = Math.min(base * 2, 30_000);
    }
    assertThat(delays.get(11)).isBetween(24_000L, 36_000L);
  }

  @Test
  void jitterSpreadsClientsApart() {
    Backoff policy = Backoff.standard();
    long a = policy.newStreak(new Random(1)).nextDelayNanos();
    long b = policy.newStreak(new Random(2)).nextDelayNanos();
    assertThat(a).isNotEqualTo(b);
  }

  @Test
  void eachStreakStartsAgainFromTheInitialDelay() {
    Backoff policy = Backoff.exponential();
    Backoff.Streak first = policy.newStreak(new Random(1));
    first.nextDelayNanos();
    first.nextDelayNanos();
    assertThat(policy.newStreak(new Random(1)).nextDelayNanos())
        .isEqualTo(Duration.ofSeconds(30).toNanos());
  }

  @Test
  void invalidPolicyIsRejectedWithItsValues() {
    assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(2), 2, Duration.ofSeconds(1), 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PT2S");
  }
}
