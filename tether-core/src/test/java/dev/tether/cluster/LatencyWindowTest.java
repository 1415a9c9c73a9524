package dev.tether.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class LatencyWindowTest {
  private static final long MS = 1_000_000;

  private final LatencyWindow window = new LatencyWindow(EpsilonCalculator.linear(), 120, 0);

  @Test
  void anEmptyWindowHasNoAverageAndNoValue() {
    assertThat(window.weightedAverageNanos(0)).isNaN();
    assertThat(window.epsilonValue(0)).isNaN();
  }

  @Test
  void callsOfOnePeriodAverageTogether() {
    window.record(10 * MS, 0);
    window.record(30 * MS, 0);
    assertThat(window.weightedAverageNanos(0)).isEqualTo(20.0 * MS);
  }

  @Test
  void aLaterPeriodFillsANewBucketThatWeighsMore() {
    window.record(20 * MS, 0);
    window.record(40 * MS, 1);
    assertThat(window.weightedAverageNanos(1))
        .isCloseTo((119 * 20.0 + 120 * 40.0) / 239 * MS, within(1.0));
  }

  @Test
  void olderBucketsLoseWeightLinearlyAsPeriodsPass() {
    window.record(20 * MS, 0);
    window.record(40 * MS, 60);
    // The first bucket is 60 periods older: weight 60 against 120.
    assertThat(window.weightedAverageNanos(60))
        .isCloseTo((60 * 20.0 + 120 * 40.0) / 180 * MS, within(1.0));
    // Moving on changes both weights by one each period: 59 and 119.
    assertThat(window.weightedAverageNanos(61))
        .isCloseTo((59 * 20.0 + 119 * 40.0) / 178 * MS, within(1.0));
  }

  @Test
  void aBucketExpiresAfterAHundredAndTwentyPeriods() {
    window.record(20 * MS, 0);
    assertThat(window.weightedAverageNanos(119)).isEqualTo(20.0 * MS);
    assertThat(window.weightedAverageNanos(120)).isNaN();
    assertThat(window.epsilonValue(120)).isNaN();
  }

  @Test
  void aLongSilenceClearsEveryBucket() {
    window.record(20 * MS, 0);
    window.record(20 * MS, 5);
    assertThat(window.weightedAverageNanos(1_000_000)).isNaN();
    window.record(8 * MS, 1_000_001);
    assertThat(window.weightedAverageNanos(1_000_001)).isEqualTo(8.0 * MS);
  }

  @Test
  void aLateCallCountsInTheCurrentBucket() {
    window.record(10 * MS, 5);
    window.record(30 * MS, 4);
    assertThat(window.period()).isEqualTo(5);
    assertThat(window.weightedAverageNanos(5)).isEqualTo(20.0 * MS);
  }

  @Test
  void theEpsilonValueIsTheCalculatorsValueOfTheAverageInMilliseconds() {
    window.record(4 * MS, 0);
    assertThat(window.epsilonValue(0)).isEqualTo(0.25);
  }

  @Test
  void aZeroLatencyReadsAsOneMicrosecondInsteadOfAnInfiniteValue() {
    window.record(0, 0);
    assertThat(window.epsilonValue(0)).isCloseTo(1_000.0, within(1e-9));
  }
}
