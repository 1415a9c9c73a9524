package dev.tether.cli.demo;

/**
 * Something {@code tether demo --scenario NAME} can run. Three shapes exist, and the command picks
 * the runner by shape: a {@link Scenario} disrupts a cluster of three servers under load ({@link
 * DemoRun}); a {@link FrozenPeerScenario} freezes the network under one quiet client and times how
 * long its heartbeats take to notice ({@link FrozenPeerRun}); a {@link ShowcaseScenario} runs one
 * disruption after another behind fault proxies, each judged on its own ({@link ShowcaseRun}).
 */
public sealed interface DemoScenario permits Scenario, FrozenPeerScenario, ShowcaseScenario {
  /** What {@code --scenario} calls it. */
  String name();

  /** One line for the summary and {@code --help}. */
  String description();
}
