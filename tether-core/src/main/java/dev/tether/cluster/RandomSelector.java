package dev.tether.cluster;

import java.util.List;
import java.util.Objects;
import java.util.Random;

/**
 * Picks a live node uniformly at random from the given source, ignoring load and latency.
 * Thread-safe as long as the source is (a {@link Random} is; pass a seeded one to make picks
 * reproducible).
 */
public final class RandomSelector implements NodeSelector {
  private final Random random;

  public RandomSelector(Random random) {
    this.random = Objects.requireNonNull(random, "random");
  }

  @Override
  public int pick(List<? extends NodeStats> live, long nowNanos) {
    return random.nextInt(live.size());
  }

  @Override
  public String toString() {
    return "RandomSelector";
  }
}
