package dev.tether.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RetryBudgetTest {
  private static final long SECOND = 1_000_000_000L;

  @Test
  void floorAllowsTenRetriesPerSecondOfWindowWithoutCalls() {
    RetryBudget budget = new RetryBudget(0.2, 10);
    int allowed = 0;
    for (int i = 0; i < 1_000; i++) {
      if (budget.tryRetry(5 * SECOND)) {
        allowed++;
      }
    }
    assertThat(allowed).isEqualTo(100);
  }

  @Test
  void retriesStopAtTwentyPercentOfCallsPlusTheFloor() {
    RetryBudget budget = new RetryBudget(0.2, 0);
    for (int i = 0; i < 1_000; i++) {
      budget.recordCall(3 * SECOND);
    }
    int allowed = 0;
    for (int i = 0; i < 1_000; i++) {
      if (budget.tryRetry(3 * SECOND)) {
        allowed++;
      }
    }
    assertThat(allowed).isEqualTo(200);
  }

  @Test
  void retryStormIsStoppedWhileEveryCallFails() {
    RetryBudget budget = RetryBudget.standard();
    long retries = 0;
    long calls = 0;
    // 1,000 calls a second for 30 s, each wanting up to 3 retries.
    for (long ms = 0; ms < 30_000; ms++) {
      long now = 100 * SECOND + ms * 1_000_000L;
      budget.recordCall(now);
      calls++;
      for (int r = 0; r < 3 && budget.tryRetry(now); r++) {
        retries++;
      }
    }
    assertThat((double) retries / calls).isLessThan(0.2 + 100.0 / 1_000);
  }

  @Test
  void oldCallsLeaveTheWindowAfterTenSeconds() {
    RetryBudget budget = new RetryBudget(0.2, 0);
    for (int i = 0; i < 100; i++) {
      budget.recordCall(0);
    }
    assertThat(budget.tryRetry(9 * SECOND)).isTrue();
    assertThat(budget.tryRetry(11 * SECOND)).isFalse();
  }
}
