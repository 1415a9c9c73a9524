package dev.tether.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

class RoundRobinSelectorTest {
  private final RoundRobinSelector selector = new RoundRobinSelector();
  private final List<FakeNode> nodes = FakeNode.nodes(3);

  @Test
  void threeHundredPicksGiveEachOfThreeNodesExactlyOneHundred() {
    int[] picks = new int[3];
    for (int i = 0; i < 300; i++) {
      picks[selector.pick(nodes, 0)]++;
    }
    assertThat(picks).containsExactly(100, 100, 100);
  }

  @Test
  void nodesAreTakenInTurnSoEveryPrefixIsBalancedWithinOne() {
    int[] picks = new int[3];
    for (int i = 0; i < 100; i++) {
      assertThat(selector.pick(nodes, 0)).isEqualTo(i % 3);
      picks[i % 3]++;
      assertThat(max(picks) - min(picks)).isLessThanOrEqualTo(1);
    }
  }

  @Test
  void aHedgeAfterEveryCallToTheSlowNodeTakesNoTurnSoFirstAttemptsStaySpreadEvenly() {
    int[] firstAttempts = new int[3];
    for (int i = 0; i < 300; i++) {
      int first = selector.pick(nodes, 0);
      firstAttempts[first]++;
      if (first == 2) {
        // Node 2 is slow: the call is hedged on one of the other two.
        int other = selector.pickAnother(nodes.subList(0, 2), 0);
        assertThat(other).isBetween(0, 1);
      }
    }
    assertThat(firstAttempts).containsExactly(100, 100, 100);
  }

  @Test
  void concurrentCallersShareTheTurnsExactly() throws InterruptedException {
    AtomicIntegerArray picks = new AtomicIntegerArray(3);
    List<Thread> callers = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      callers.add(
          new Thread(
              () -> {
                for (int i = 0; i < 3_000; i++) {
                  picks.incrementAndGet(selector.pick(nodes, 0));
                }
              }));
    }
    callers.forEach(Thread::start);
    for (Thread caller : callers) {
      caller.join();
    }
    assertThat(picks.toString()).isEqualTo("[4000, 4000, 4000]");
  }

  @Test
  void picksStayInsideTheListWhenItShrinks() {
    selector.pick(nodes, 0);
    selector.pick(nodes, 0);
    List<FakeNode> two = nodes.subList(0, 2);
    for (int i = 0; i < 10; i++) {
      assertThat(selector.pick(two, 0)).isBetween(0, 1);
    }
  }

  private static int max(int[] values) {
    return Math.max(values[0], Math.max(values[1], values[2]));
  }

  private static int min(int[] values) {
    return Math.min(values[0], Math.min(values[1], values[2]));
  }
}
