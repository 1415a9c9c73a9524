package dev.tether.cli.demo;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** The scenarios {@code tether demo} knows, by name. */
public final class Scenarios {
  /** The server every disruptive scenario picks on: the middle one of three. */
  static final String VICTIM = "server-2";

  /** server-2 is closed abruptly midway: the case the at-most-once rule exists for. */
  public static final Scenario ABRUPT_STOP = new Scenario(
      "abrupt-stop",
      VICTIM + " is closed abruptly (close()) midway",
      List.of(new Scenario.Step(0.5, cluster -> cluster.stopAbruptly(VICTIM))));

  /**
   * server-2 is closed abruptly midway, caught while executing an increment: its caller must be
   * told the increment may have run, never see it silently retried.
   */
  public static final Scenario CRASH_DURING_INCREMENT = new Scenario(
      "crash-during-increment",
      VICTIM + " is closed abruptly (close()) midway, while it executes an increment",
      List.of(new Scenario.Step(0.5, cluster -> cluster.stopAbruptlyDuringIncrement(VICTIM, Duration.ofSeconds(2)))));

  /** server-2 shuts down gracefully midway: GOAWAY and drain, so no call should fail. */
  public static final Scenario GRACEFUL_STOP = new Scenario(
      "graceful-stop",
      VICTIM + " shuts down gracefully (shutdownGracefully) midway",
      List.of(new Scenario.Step(0.5, cluster -> cluster.stopGracefully(VICTIM, Duration.ofSeconds(5)))));

  /** Nothing happens: the baseline to compare the others with. */
  public static final Scenario STEADY = new Scenario("steady", "nothing is disrupted", List.of());

  /** Every scenario, the default first. */
  public static final List<Scenario> ALL = List.of(ABRUPT_STOP, CRASH_DURING_INCREMENT, GRACEFUL_STOP, STEADY);

  private Scenarios() {}

  public static Optional<Scenario> byName(String name) {
    return ALL.stream().filter(s -> s.name().equals(name)).findFirst();
  }

  /** The names, for help text and error messages. */
  public static List<String> names() {
    return ALL.stream().map(Scenario::name).toList();
  }
}
