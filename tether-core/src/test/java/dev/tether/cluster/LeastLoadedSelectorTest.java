package dev.tether.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LeastLoadedSelectorTest {
  private final LeastLoadedSelector selector = new LeastLoadedSelector(new Random(42));
  private final List<FakeNode> nodes = FakeNode.nodes(3);

  @Test
  void neverPicksANodeHoldingFiftyCallsWhileTheOthersAreIdle() {
    // Two distinct samples out of three always include an idle node.
    nodes.get(1).inFlight = 50;
    int[] picks = pick(1_000);
    assertThat(picks[1]).isZero();
    assertThat(picks[0]).isBetween(400, 600);
    assertThat(picks[2]).isBetween(400, 600);
  }

  @Test
  void fewerCallsInFlightWinsEvenOverAFasterNode() {
    List<FakeNode> two = nodes.subList(0, 2);
    two.get(0).inFlight = 3;
    two.get(0).latencyEwmaNanos = 1_000_000;
    two.get(1).inFlight = 2;
    two.get(1).latencyEwmaNanos = 50_000_000;
    for (int i = 0; i < 50; i++) {
      assertThat(selector.pick(two, 0)).isEqualTo(1);
    }
  }

  @Test
  void onEqualLoadTheLowerLatencyWins() {
    List<FakeNode> two = nodes.subList(0, 2);
    two.get(0).latencyEwmaNanos = 10_000_000;
    two.get(1).latencyEwmaNanos = 1_000_000;
    for (int i = 0; i < 50; i++) {
      assertThat(selector.pick(two, 0)).isEqualTo(1);
    }
  }

  @Test
  void onEqualLoadLatenciesWithinFourTimesEachOtherShareTheCalls() {
    List<FakeNode> two = nodes.subList(0, 2);
    two.get(0).latencyEwmaNanos = 1_500_000;
    two.get(1).latencyEwmaNanos = 1_000_000;
    int slower = 0;
    for (int i = 0; i < 1_000; i++) {
      slower += selector.pick(two, 0) == 0 ? 1 : 0;
    }
    assertThat(slower).isBetween(400, 600);
  }

  @Test
  void onAFullTieTheNodePickedLessRecentlyWinsSoIdenticalNodesTakeTurns() {
    List<FakeNode> two = nodes.subList(0, 2);
    two.get(0).latencyEwmaNanos = 1_000_000;
    two.get(1).latencyEwmaNanos = 1_200_000;
    int first = selector.pick(two, 0);
    for (int i = 0; i < 20; i++) {
      assertThat(selector.pick(two, 0)).isEqualTo((first + 1 + i) % 2);
    }
  }

  @Test
  void aNodeWithoutLatencyYetWinsATieSoItGetsMeasured() {
    List<FakeNode> two = nodes.subList(0, 2);
    two.get(0).latencyEwmaNanos = 1_000_000;
    two.get(1).latencyEwmaNanos = 0;
    for (int i = 0; i < 50; i++) {
      assertThat(selector.pick(two, 0)).isEqualTo(1);
    }
  }

  @Test
  void equalNodesShareTheCallsEvenly() {
    int[] picks = pick(3_000);
    for (int count : picks) {
      assertThat(count).isBetween(900, 1_100);
    }
  }

  @Test
  void theOnlyLiveNodeIsAlwaysPicked() {
    FakeNode busy = nodes.get(0);
    busy.inFlight = 1_000;
    assertThat(selector.pick(List.of(busy), 0)).isZero();
  }

  private int[] pick(int count) {
    int[] picks = new int[nodes.size()];
    for (int i = 0; i < count; i++) {
      picks[selector.pick(nodes, 0)]++;
    }
    return picks;
  }
}
