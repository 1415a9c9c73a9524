package dev.tether.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RandomSelectorTest {
  private final List<FakeNode> nodes = FakeNode.nodes(3);

  @Test
  void picksAreRoughlyUniform() {
    RandomSelector selector = new RandomSelector(new Random(42));
    int[] picks = new int[3];
    for (int i = 0; i < 30_000; i++) {
      picks[selector.pick(nodes, 0)]++;
    }
    // Each count has a standard deviation of about 82 around 10,000.
    for (int count : picks) {
      assertThat(count).isBetween(9_600, 10_400);
    }
  }

  @Test
  void theSameSeedGivesTheSamePicks() {
    assertThat(firstPicks(new RandomSelector(new Random(7))))
        .isEqualTo(firstPicks(new RandomSelector(new Random(7))));
  }

  private List<Integer> firstPicks(RandomSelector selector) {
    List<Integer> picks = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      picks.add(selector.pick(nodes, 0));
    }
    return picks;
  }
}
