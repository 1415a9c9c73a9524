package dev.tether.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tether.Endpoint;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

class EpsilonGreedySelectorTest {
  private static final long MS = 1_000_000;
  private static final long SECOND = 1_000 * MS;

  /** With the default 5 minute decay, one bucket lasts 2.5 s. */
  private static final long BUCKET = 2_500 * MS;

  /** The simulated clients send one call every 10 ms. */
  private static final long CALL_INTERVAL = 10 * MS;

  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  private final List<FakeNode> nodes = FakeNode.nodes(3);
  private final FakeNode fast = nodes.get(0);
  private final FakeNode slow = nodes.get(1);
  private final List<FakeNode> fastAndSlow = List.of(fast, slow);
  private final long[] latencyNanos = {2 * MS, 22 * MS, 2 * MS};
  private long now = 0;

  @Test
  void aTwoMillisecondNodeGetsClearlyMoreCallsThanATwentyTwoMillisecondOneWhichIsStillTried() {
    EpsilonGreedySelector selector = EpsilonGreedySelector.withDefaults(new Random(42));
    run(selector, fastAndSlow, 5_000);

    int[] picks = run(selector, fastAndSlow, 10_000);

    // Expected about 8,960 : 1,040 (exploring 5% uniformly, exploiting 11 : 1 otherwise).
    assertThat(picks[0]).isGreaterThanOrEqualTo(2 * picks[1]);
    assertThat(picks[1]).isGreaterThanOrEqualTo(300);
  }

  @Test
  void aNodeThatTurnsSlowLosesItsShareOnceTheDecayMovesOn() {
    EpsilonGreedySelector selector = EpsilonGreedySelector.withDefaults(new Random(42));
    latencyNanos[0] = 5 * MS;
    latencyNanos[1] = 5 * MS;
    run(selector, fastAndSlow, 5_000);
    int[] before = run(selector, fastAndSlow, 10_000);
    assertThat(before[0]).isBetween(4_000, 6_000);

    latencyNanos[0] = 50 * MS;
    int[] firstBuckets = run(selector, fastAndSlow, 2_000);
    run(selector, fastAndSlow, 28_000); // the rest of the 5 minute decay duration
    int[] after = run(selector, fastAndSlow, 10_000);

    // Expected near 1,100 of 10,000 after the decay (exploit 1 : 10, explore 5%).
    assertThat(firstBuckets[0]).isLessThan(before[0] / 5);
    assertThat(after[0]).isLessThan(2_000).isGreaterThan(300);
  }

  @Test
  void polynomialTwoSendsTheSlowNodeFewerCallsThanLinearWhichSendsFewerThanLogarithmic() {
    int polynomialSlow = slowShareAfterWarmUp(EpsilonCalculator.polynomial(2));
    int linearSlow = slowShareAfterWarmUp(EpsilonCalculator.linear());
    int logarithmicSlow = slowShareAfterWarmUp(EpsilonCalculator.logarithmic());

    assertThat(polynomialSlow).isLessThan(linearSlow);
    assertThat(linearSlow).isLessThan(logarithmicSlow);
  }

  @Test
  void aNodeWithoutMeasurementsCountsAsAverageSoANewNodeGetsTraffic() {
    EpsilonGreedySelector selector = EpsilonGreedySelector.withDefaults(new Random(42));
    run(selector, fastAndSlow, 5_000);

    int[] picks = new int[3];
    for (int i = 0; i < 3_000; i++) {
      picks[selector.pick(nodes, now)]++; // nothing recorded: the new node stays unmeasured
    }

    // Values 0.5 and 0.045 make the newcomer's 0.27 a third of the total.
    assertThat(picks[2]).isBetween(800, 1_200);
    assertThat(picks[0]).isGreaterThan(picks[2]);
  }

  @Test
  void withoutMeasurementsPicksAreUniform() {
    EpsilonGreedySelector selector = EpsilonGreedySelector.withDefaults(new Random(42));
    int[] picks = new int[3];
    for (int i = 0; i < 3_000; i++) {
      picks[selector.pick(nodes, i * CALL_INTERVAL)]++;
    }
    for (int count : picks) {
      assertThat(count).isBetween(900, 1_100);
    }
  }

  @Test
  void bucketsLastAHundredAndTwentiethOfTheDecayDuration() {
    EpsilonGreedySelector selector = EpsilonGreedySelector.withDefaults(new Random(42));
    selector.onCallFinished(fast, 10 * MS, 0);
    selector.onCallFinished(fast, 30 * MS, BUCKET - 1);
    assertThat(selector.weightedAverageNanos(fast, BUCKET - 1)).isEqualTo(20.0 * MS);

    selector.onCallFinished(fast, 40 * MS, BUCKET);
    assertThat(selector.weightedAverageNanos(fast, BUCKET))
        .isCloseTo((119 * 20.0 + 120 * 40.0) / 239 * MS, within(1.0));
  }

  @Test
  void aShorterDecayDurationMakesShorterBuckets() {
    EpsilonGreedySelector selector =
        new EpsilonGreedySelector(
            Duration.ofSeconds(120), EpsilonCalculator.linear(), new Random(42));
    selector.onCallFinished(fast, 20 * MS, 0);
    selector.onCallFinished(fast, 40 * MS, SECOND);
    assertThat(selector.weightedAverageNanos(fast, SECOND))
        .isCloseTo((119 * 20.0 + 120 * 40.0) / 239 * MS, within(1.0));
    assertThat(selector.weightedAverageNanos(fast, 120 * SECOND)).isEqualTo(40.0 * MS);
    assertThat(selector.weightedAverageNanos(fast, 121 * SECOND)).isNaN();
  }

  @Test
  void epsilonStartsAtThirtyPercentAndDecaysToFivePercentAsBucketsPass() {
    EpsilonGreedySelector selector = EpsilonGreedySelector.withDefaults(new Random(42));
    assertThat(selector.epsilon()).isEqualTo(0.3);

    selector.pick(nodes, 0);
    selector.pick(nodes, BUCKET - 1);
    assertThat(selector.epsilon()).isEqualTo(0.3);
    selector.pick(nodes, BUCKET);
    assertThat(selector.epsilon()).isCloseTo(0.27, within(1e-12));
    selector.pick(nodes, 17 * BUCKET);
    assertThat(selector.epsilon())
        .isCloseTo(0.3 * Math.pow(0.9, 17), within(1e-12))
        .isGreaterThan(0.05);
    selector.pick(nodes, 18 * BUCKET);
    assertThat(selector.epsilon()).isEqualTo(0.05);
    selector.pick(nodes, 1_000 * BUCKET);
    assertThat(selector.epsilon()).isEqualTo(0.05);
  }

  @Test
  void nodesWithoutCallsForAWholeDecayDurationAreForgotten() {
    EpsilonGreedySelector selector = EpsilonGreedySelector.withDefaults(new Random(42));
    selector.onCallFinished(fast, 2 * MS, 0);
    selector.onCallFinished(slow, 22 * MS, 0);
    assertThat(selector.trackedNodes()).isEqualTo(2);

    for (long t = BUCKET; t < 120 * BUCKET; t += BUCKET) {
      selector.onCallFinished(fast, 2 * MS, t);
    }
    assertThat(selector.trackedNodes()).isEqualTo(2);
    selector.onCallFinished(fast, 2 * MS, 120 * BUCKET);
    assertThat(selector.trackedNodes()).isEqualTo(1);
    assertThat(selector.weightedAverageNanos(slow, 120 * BUCKET)).isNaN();
  }

  @Test
  void nodesAreTrackedByIdentityNotByEquality() {
    EpsilonGreedySelector selector = EpsilonGreedySelector.withDefaults(new Random(42));
    Endpoint endpoint = new Endpoint("tcp", "127.0.0.1", 7001, null, false);
    SameNode first = new SameNode(endpoint);
    SameNode second = new SameNode(endpoint);
    assertThat(first).isEqualTo(second);

    selector.onCallFinished(first, 2 * MS, 0);
    selector.onCallFinished(second, 22 * MS, 0);

    assertThat(selector.trackedNodes()).isEqualTo(2);
    assertThat(selector.weightedAverageNanos(first, 0)).isEqualTo(2.0 * MS);
    assertThat(selector.weightedAverageNanos(second, 0)).isEqualTo(22.0 * MS);
  }

  @Test
  void picksAllocateNothing() {
    assumeTrue(
        THREADS.isThreadAllocatedMemorySupported() && THREADS.isThreadAllocatedMemoryEnabled());
    EpsilonGreedySelector selector = EpsilonGreedySelector.withDefaults(new Random(42));
    run(selector, fastAndSlow, 5_000);
    for (int i = 0; i < 10_000; i++) {
      selector.pick(nodes, now);
    }

    long before = THREADS.getCurrentThreadAllocatedBytes();
    for (int i = 0; i < 100_000; i++) {
      selector.pick(nodes, now);
    }
    long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;

    assertThat(allocated).as("bytes allocated by 100,000 picks").isLessThan(10_000);
  }

  @Test
  void concurrentCallersCanPickAndRecordWithSlightlyDifferentClocks() throws InterruptedException {
    EpsilonGreedySelector selector = EpsilonGreedySelector.withDefaults(new Random(42));
    AtomicIntegerArray picks = new AtomicIntegerArray(2);
    List<Thread> callers = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      long skew = t * MS;
      callers.add(
          new Thread(
              () -> {
                for (long clock = skew; clock < 200 * SECOND; clock += 10 * MS) {
                  int picked = selector.pick(fastAndSlow, clock);
                  picks.incrementAndGet(picked);
                  long latency = latencyNanos[picked];
                  selector.onCallFinished(fastAndSlow.get(picked), latency, clock + latency);
                }
              }));
    }
    callers.forEach(Thread::start);
    for (Thread caller : callers) {
      caller.join();
    }

    assertThat(picks.get(0) + picks.get(1)).isEqualTo(80_000);
    assertThat(picks.get(0)).isGreaterThan(4 * picks.get(1));
    assertThat(selector.weightedAverageNanos(fast, 200 * SECOND)).isEqualTo(2.0 * MS);
    assertThat(selector.weightedAverageNanos(slow, 200 * SECOND)).isEqualTo(22.0 * MS);
  }

  @Test
  void theOnlyLiveNodeIsAlwaysPicked() {
    EpsilonGreedySelector selector = EpsilonGreedySelector.withDefaults(new Random(42));
    for (int i = 0; i < 100; i++) {
      assertThat(selector.pick(List.of(slow), i * CALL_INTERVAL)).isZero();
    }
  }

  @Test
  void aDecayDurationShorterThanOneNanosecondPerBucketIsRefused() {
    assertThatThrownBy(
            () ->
                new EpsilonGreedySelector(
                    Duration.ofNanos(119), EpsilonCalculator.linear(), new Random(1)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /** The slow node's calls among 10,000, after 5,000 calls of warm-up. */
  private int slowShareAfterWarmUp(EpsilonCalculator calculator) {
    now = 0;
    EpsilonGreedySelector selector =
        new EpsilonGreedySelector(Duration.ofMinutes(5), calculator, new Random(42));
    run(selector, fastAndSlow, 5_000);
    return run(selector, fastAndSlow, 10_000)[1];
  }

  /**
   * A closed loop of {@code calls} calls, one every 10 ms, each to the picked node, which answers
   * after its latency in {@link #latencyNanos}; returns the picks per node.
   */
  private int[] run(EpsilonGreedySelector selector, List<FakeNode> live, int calls) {
    int[] picks = new int[live.size()];
    for (int i = 0; i < calls; i++) {
      int picked = selector.pick(live, now);
      picks[picked]++;
      long latency = latencyNanos[nodes.indexOf(live.get(picked))];
      selector.onCallFinished(live.get(picked), latency, now + latency);
      now += CALL_INTERVAL;
    }
    return picks;
  }

  /** A node with value equality, as a record implementation would have. */
  private record SameNode(Endpoint endpoint) implements NodeStats {
    @Override
    public int inFlight() {
      return 0;
    }

    @Override
    public double latencyEwmaNanos() {
      return 0;
    }
  }
}
