package dev.tether.cli.demo;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * The showcase: three servers behind fault proxies under mixed load, and one disruption after
 * another, each in its own phase with its own counts and verdicts, so a reader sees which
 * disruption a failure belongs to. Adding a phase means adding one value to {@link #phases()}.
 *
 * @param defaultDuration how long all phases take together when {@code --seconds} is not given
 * @param expectations what every phase must show, besides that it was handled
 */
public record ShowcaseScenario(
    String name,
    String description,
    int defaultCallers,
    Duration defaultDuration,
    List<Phase> phases,
    List<Expectation> expectations)
    implements DemoScenario {

  public ShowcaseScenario {
    Objects.requireNonNull(name);
    Objects.requireNonNull(description);
    phases = List.copyOf(phases);
    expectations = List.copyOf(expectations);
    if (phases.isEmpty() || defaultCallers < 1) {
      throw new IllegalArgumentException(name + ": a phase and a caller at least");
    }
  }

  /**
   * One disruption and what shows it was handled.
   *
   * @param name a short label, e.g. "freeze"
   * @param announcement one line on the timeline when the phase begins
   * @param throughPrimary true when the callers use a proxy that follows the cluster view the
   *     servers announce in WELCOME, primary first (failover), false for per-request balancing over
   *     all
   * @param streamFrom the server a live stream ({@code ticks.tick}) comes from through the phase,
   *     its figures part of the evidence; null for none
   * @param steps what happens, at fractions of the phase
   * @param handled judges, from what the client saw during the phase, that the disruption was
   *     noticed and routed around
   */
  public record Phase(
      String name,
      String announcement,
      boolean throughPrimary,
      String streamFrom,
      List<Scenario.Step> steps,
      Function<PhaseEvidence, Verdict> handled) {
    /** A phase without a live stream. */
    public Phase(
        String name,
        String announcement,
        boolean throughPrimary,
        List<Scenario.Step> steps,
        Function<PhaseEvidence, Verdict> handled) {
      this(name, announcement, throughPrimary, null, steps, handled);
    }

    public Phase {
      Objects.requireNonNull(name);
      Objects.requireNonNull(announcement);
      steps = List.copyOf(steps);
      Objects.requireNonNull(handled);
      // The same rule Scenario checks, through it, so the two cannot drift apart.
      new Scenario(name, announcement, steps);
    }
  }
}
