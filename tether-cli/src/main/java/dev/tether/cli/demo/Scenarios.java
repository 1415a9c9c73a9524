package dev.tether.cli.demo;

import dev.tether.observe.TetherEvent;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** The scenarios {@code tether demo} knows, by name. */
public final class Scenarios {
  /** The server the single-disruption scenarios pick on: the middle one of three. */
  static final String VICTIM = "server-2";

  /** server-2 is closed abruptly midway: the case the at-most-once rule exists for. */
  public static final Scenario ABRUPT_STOP =
      new Scenario(
          "abrupt-stop",
          VICTIM + " is closed abruptly (close()) midway",
          List.of(new Scenario.Step(0.5, cluster -> cluster.stopAbruptly(VICTIM))));

  /**
   * server-2 is closed abruptly midway, caught while executing an increment: its caller must be
   * told the increment may have run, never see it silently retried.
   */
  public static final Scenario CRASH_DURING_INCREMENT =
      new Scenario(
          "crash-during-increment",
          VICTIM + " is closed abruptly (close()) midway, while it executes an increment",
          List.of(
              new Scenario.Step(
                  0.5,
                  cluster -> cluster.stopAbruptlyDuringIncrement(VICTIM, Duration.ofSeconds(2)))));

  /** server-2 shuts down gracefully midway: GOAWAY and drain, so no call should fail. */
  public static final Scenario GRACEFUL_STOP =
      new Scenario(
          "graceful-stop",
          VICTIM + " shuts down gracefully (shutdownGracefully) midway",
          List.of(
              new Scenario.Step(
                  0.5, cluster -> cluster.stopGracefully(VICTIM, Duration.ofSeconds(5)))));

  /**
   * How long a rolling restart lets each server drain; calls take microseconds, so far more than
   * enough.
   */
  static final Duration RESTART_GRACE = Duration.ofSeconds(5);

  /** The callers of the restart scenarios: eight at once, enough to keep every server busy. */
  static final int RESTART_CALLERS = 8;

  /**
   * Every server in turn shuts down gracefully and comes back on the same port, a quarter of the
   * run apart: a rolling redeployment. GOAWAY, REFUSED and the retry of refused requests must keep
   * every call, increments included, from failing or running twice.
   */
  public static final Scenario ROLLING_RESTART =
      new Scenario(
          "rolling-restart",
          "server-1, -2, -3 in turn shut down gracefully and restart on the same port, a quarter "
              + "of the run apart",
          RESTART_CALLERS,
          List.of(
              new Scenario.Step(
                  0.25, cluster -> cluster.restartGracefully("server-1", RESTART_GRACE)),
              new Scenario.Step(
                  0.50, cluster -> cluster.restartGracefully("server-2", RESTART_GRACE)),
              new Scenario.Step(
                  0.75, cluster -> cluster.restartGracefully("server-3", RESTART_GRACE))),
          List.of(Expectation.NO_CALL_FAILS, Expectation.NO_DUPLICATE_INCREMENTS));

  /**
   * Every server in turn is killed ({@code close()}) and restarted on the same port a tenth of the
   * run later, never two down at once: idempotent calls must always land on a live server, and an
   * increment may fail only when it may have run, and then say so.
   */
  public static final Scenario ABRUPT_KILLS =
      new Scenario(
          "abrupt-kills",
          "server-1, -2, -3 in turn are closed abruptly (close()) and restart on the same port a "
              + "tenth of the run"
              + " later; never two down at once",
          RESTART_CALLERS,
          List.of(
              new Scenario.Step(0.20, cluster -> cluster.stopAbruptly("server-1")),
              new Scenario.Step(0.30, cluster -> cluster.restart("server-1")),
              new Scenario.Step(0.45, cluster -> cluster.stopAbruptly("server-2")),
              new Scenario.Step(0.55, cluster -> cluster.restart("server-2")),
              new Scenario.Step(0.70, cluster -> cluster.stopAbruptly("server-3")),
              new Scenario.Step(0.80, cluster -> cluster.restart("server-3"))),
          List.of(
              Expectation.IDEMPOTENT_CALLS_NEVER_FAIL,
              Expectation.INCREMENT_FAILURES_ARE_ONLY_LOST_AFTER_SEND,
              Expectation.EXECUTIONS_WITHIN_ACKNOWLEDGED_PLUS_LOST));

  /**
   * One server behind a fault proxy that freezes: no byte moves, no socket closes. Only the
   * client's heartbeats can tell, within idleTimeout plus readerIdle.
   */
  public static final FrozenPeerScenario FROZEN_PEER =
      new FrozenPeerScenario(
          "frozen-peer",
          "the network to the only server freezes (nothing moves, no socket closes); the client's "
              + "heartbeats"
              + " must notice",
          Duration.ofMillis(100),
          Duration.ofSeconds(2),
          Duration.ofSeconds(5));

  /**
   * When in its phase the showcase's freeze begins and ends: it lasts most of the phase (6.4 s of
   * the default 8 s phase), so the client's heartbeat (250 ms + 750 ms) finds it several times over
   * and a person watching the status page, which samples every 500 ms, sees the frozen server's
   * connection break and come back while the freeze still holds. It ends before the phase does, so
   * the next phase starts on a cluster that flows again.
   */
  static final double FREEZE_STARTS = 0.1;

  static final double FREEZE_ENDS = 0.9;

  /** The primary of the showcase's failover phase. */
  static final String PRIMARY = "server-1";

  /**
   * What {@code ./tether demo} runs: one disruption of each kind in turn, behind fault proxies,
   * each phase judged on its own: the client must notice it (a live stream must resume through a
   * reset, every item once), no idempotent call may fail while two servers are up, and no increment
   * may run more often than its callers can know of.
   */
  public static final ShowcaseScenario SHOWCASE =
      new ShowcaseScenario(
          "showcase",
          "an abrupt kill, a freeze, a graceful drain, a rolling restart, a stream through a "
              + "reset and a primary"
              + " failover, one after the other, on 3 servers behind fault proxies",
          6,
          Duration.ofSeconds(48),
          List.of(
              new ShowcaseScenario.Phase(
                  "abrupt kill",
                  "server-1 will be killed (close()) and restarted",
                  false,
                  List.of(
                      new Scenario.Step(0.3, cluster -> cluster.stopAbruptly("server-1")),
                      new Scenario.Step(0.7, cluster -> cluster.restart("server-1"))),
                  e ->
                      e.noticed(
                          "the client saw the connection drop and retried elsewhere",
                          TetherEvent.Kind.CONNECTION_CLOSED,
                          "server-1")),
              new ShowcaseScenario.Phase(
                  "freeze",
                  "server-2's network will freeze: no byte moves, no socket closes",
                  false,
                  List.of(
                      new Scenario.Step(FREEZE_STARTS, cluster -> cluster.freeze(VICTIM)),
                      new Scenario.Step(FREEZE_ENDS, cluster -> cluster.unfreeze(VICTIM))),
                  e ->
                      e.noticed(
                          "the client's heartbeat found the frozen peer",
                          TetherEvent.Kind.HEARTBEAT_TIMEOUT,
                          VICTIM)),
              new ShowcaseScenario.Phase(
                  "graceful drain",
                  "server-3 will shut down gracefully and restart",
                  false,
                  List.of(
                      new Scenario.Step(
                          0.3, cluster -> cluster.stopGracefully("server-3", RESTART_GRACE)),
                      new Scenario.Step(0.7, cluster -> cluster.restart("server-3"))),
                  e ->
                      e.noticed(
                          "the client heard GOAWAY and moved its calls",
                          TetherEvent.Kind.GOAWAY_RECEIVED,
                          "server-3")),
              new ShowcaseScenario.Phase(
                  "rolling restart",
                  "server-1, -2, -3 will restart gracefully in turn",
                  false,
                  List.of(
                      new Scenario.Step(
                          0.15, cluster -> cluster.restartGracefully("server-1", RESTART_GRACE)),
                      new Scenario.Step(
                          0.45, cluster -> cluster.restartGracefully("server-2", RESTART_GRACE)),
                      new Scenario.Step(
                          0.75, cluster -> cluster.restartGracefully("server-3", RESTART_GRACE))),
                  e ->
                      e.noticed(
                          "the client heard every server's GOAWAY",
                          TetherEvent.Kind.GOAWAY_RECEIVED,
                          "server-1",
                          "server-2",
                          "server-3")),
              new ShowcaseScenario.Phase(
                  "stream resume",
                  "a live stream from "
                      + VICTIM
                      + " will lose its connection (RST) midway and must resume",
                  false,
                  VICTIM,
                  List.of(new Scenario.Step(0.5, cluster -> cluster.resetConnections(VICTIM))),
                  e -> e.streamRodeThrough("the live stream rode through the reset")),
              new ShowcaseScenario.Phase(
                  "primary failover",
                  "the callers now dial the primary "
                      + PRIMARY
                      + " only and learn the alternates; its host will crash",
                  true,
                  List.of(
                      new Scenario.Step(0.0, cluster -> cluster.announcePrimary(PRIMARY)),
                      new Scenario.Step(0.4, cluster -> cluster.crashHost(PRIMARY)),
                      // Well after the crash: a client still rerouting when server-2 becomes the
                      // primary lands on the primary, not an alternate (at 0.45, 400 ms after the
                      // crash by default and 100 ms in a 12 s run, a busy machine lost that race).
                      new Scenario.Step(0.6, cluster -> cluster.announcePrimary("server-2")),
                      new Scenario.Step(0.8, cluster -> cluster.restart(PRIMARY))),
                  e ->
                      e.verdict(
                          e.alternateWasUsed() && e.events(TetherEvent.Kind.REROUTE) > 0,
                          "the client failed over to an alternate",
                          "REROUTE x"
                              + SummaryPrinter.count(e.events(TetherEvent.Kind.REROUTE))
                              + ", alternateWasUsed()="
                              + e.alternateWasUsed()))),
          List.of(
              Expectation.IDEMPOTENT_CALLS_NEVER_FAIL,
              Expectation.INCREMENT_FAILURES_ARE_ONLY_LOST_AFTER_SEND,
              Expectation.NO_DUPLICATE_INCREMENTS,
              Expectation.EVERY_CALL_COMPLETED));

  /** Nothing happens: the baseline to compare the others with. */
  public static final Scenario STEADY = new Scenario("steady", "nothing is disrupted", List.of());

  /** Every scenario, the default first. */
  public static final List<DemoScenario> ALL =
      List.of(
          SHOWCASE,
          ABRUPT_STOP,
          CRASH_DURING_INCREMENT,
          GRACEFUL_STOP,
          STEADY,
          ROLLING_RESTART,
          ABRUPT_KILLS,
          FROZEN_PEER);

  private Scenarios() {}

  public static Optional<DemoScenario> byName(String name) {
    return ALL.stream().filter(s -> s.name().equals(name)).findFirst();
  }

  /** The names, for help text and error messages. */
  public static List<String> names() {
    return ALL.stream().map(DemoScenario::name).toList();
  }
}
