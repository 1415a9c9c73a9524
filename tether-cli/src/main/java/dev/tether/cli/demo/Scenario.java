package dev.tether.cli.demo;

import java.util.List;
import java.util.Objects;

/**
 * A story the demo tells: what happens to the cluster, and when, while the callers keep calling.
 * Adding a scenario means adding one value to {@link Scenarios}.
 *
 * @param name what {@code --scenario} calls it
 * @param description one line for the summary and {@code --help}
 * @param steps disruptions in the order they happen
 */
public record Scenario(String name, String description, List<Step> steps) {

  public Scenario {
    Objects.requireNonNull(name);
    Objects.requireNonNull(description);
    steps = List.copyOf(steps);
    for (int i = 1; i < steps.size(); i++) {
      if (steps.get(i).atFraction() < steps.get(i - 1).atFraction()) {
        throw new IllegalArgumentException(name + ": steps must be in time order");
      }
    }
  }

  /**
   * One disruption.
   *
   * @param atFraction when, as a fraction of the run (0.5 is midway)
   * @param action what it does to the cluster
   */
  public record Step(double atFraction, Action action) {
    public Step {
      if (!(atFraction >= 0 && atFraction <= 1)) {
        throw new IllegalArgumentException("atFraction must be within [0, 1]: " + atFraction);
      }
      Objects.requireNonNull(action);
    }
  }

  /** Something done to the cluster; the cluster's methods record it on the timeline. */
  @FunctionalInterface
  public interface Action {
    void perform(DemoCluster cluster);
  }
}
