package dev.tether.cli.demo;

import java.util.List;
import java.util.Objects;

/**
 * A story the demo tells: what happens to the cluster, and when, while the callers keep calling,
 * and what the run must show for the story to end well. Adding a scenario means adding one value to
 * {@link Scenarios}.
 *
 * @param name what {@code --scenario} calls it
 * @param description one line for the summary and {@code --help}
 * @param defaultCallers how many callers call when {@code --callers} is not given
 * @param steps disruptions in the order they happen
 * @param expectations what the summary checks and prints a verdict for; none for a scenario that
 *     only shows what happens
 */
public record Scenario(
    String name,
    String description,
    int defaultCallers,
    List<Step> steps,
    List<Expectation> expectations)
    implements DemoScenario {

  /** The callers of a scenario that does not say otherwise. */
  public static final int DEFAULT_CALLERS = 4;

  public Scenario {
    Objects.requireNonNull(name);
    Objects.requireNonNull(description);
    if (defaultCallers < 1) {
      throw new IllegalArgumentException(
          name + ": at least one caller is needed, not " + defaultCallers);
    }
    steps = List.copyOf(steps);
    expectations = List.copyOf(expectations);
    for (int i = 1; i < steps.size(); i++) {
      if (steps.get(i).atFraction() < steps.get(i - 1).atFraction()) {
        throw new IllegalArgumentException(name + ": steps must be in time order");
      }
    }
  }

  /**
   * A scenario with {@link #DEFAULT_CALLERS} callers that only shows what happens, judging nothing.
   */
  public Scenario(String name, String description, List<Step> steps) {
    this(name, description, DEFAULT_CALLERS, steps, List.of());
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
