package dev.tether.cli.demo;

import java.util.ArrayList;
import java.util.List;

/**
 * The figures of one showcase run: per phase, the same report a single scenario run gives (both
 * sides' counts, judged against the showcase's expectations), what the client saw, and whether the
 * phase's disruption was handled.
 */
public record ShowcaseReport(
    ShowcaseScenario scenario, List<Timeline.Event> timeline, List<PhaseReport> phases) {
  public ShowcaseReport {
    timeline = List.copyOf(timeline);
    phases = List.copyOf(phases);
  }

  /**
   * One phase.
   *
   * @param report the phase's counts, its scenario named after the phase
   * @param handled whether the client noticed the disruption and routed around it
   */
  public record PhaseReport(
      ShowcaseScenario.Phase phase, DemoReport report, PhaseEvidence evidence, Verdict handled) {

    /** The handled verdict first, then the expectations, as the summary prints them. */
    public List<Verdict> verdicts() {
      List<Verdict> all = new ArrayList<>();
      all.add(handled);
      all.addAll(report.verdicts());
      return all;
    }

    public boolean met() {
      return verdicts().stream().allMatch(Verdict::met);
    }
  }

  /** True when every phase was handled and met every expectation. */
  public boolean expectationsMet() {
    return phases.stream().allMatch(PhaseReport::met);
  }
}
