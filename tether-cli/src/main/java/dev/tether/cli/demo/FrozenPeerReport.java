package dev.tether.cli.demo;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * What one frozen-peer run measured. Times after the freeze are measured from the moment the run
 * asked the proxy to freeze, so the detection time is an upper bound of the real one.
 *
 * @param scenario the scenario that ran
 * @param proxy the proxy string the client used: the fault proxy's endpoint
 * @param serverEndpoint where the server behind the fault proxy listens
 * @param readerIdle the client's heartbeat readerIdle in force: ping after this much silence
 * @param idleTimeout the client's heartbeat idleTimeout in force: dead after this much silence
 * @param heartbeatSource where those two came from: "defaults", or the options or properties that
 *     set them
 * @param timeline what happened when, since the caller started
 * @param frozenAt when the proxy froze, since the caller started
 * @param callsOk calls answered; all before the freeze, as nothing moves after it
 * @param callsFailedBeforeFreeze calls that failed before the freeze (expected: none)
 * @param lastReplyBeforeFreeze how long before the freeze the last reply arrived; null when none
 *     did
 * @param callFailure how the call pending at the freeze ended; null when it had not ended when the
 *     run gave up
 * @param callFailedAfter when that call failed, since the freeze; null with {@code callFailure}
 * @param closedAfter when the connection's state became CLOSED, since the freeze; null when it had
 *     not by the time the run gave up
 * @param waited how long the run watched after the freeze
 * @param bytesForwardedAfterFreeze bytes the fault proxy moved after the freeze, both ways
 *     (expected: 0)
 */
public record FrozenPeerReport(
    FrozenPeerScenario scenario,
    String proxy,
    String serverEndpoint,
    Duration readerIdle,
    Duration idleTimeout,
    String heartbeatSource,
    List<Timeline.Event> timeline,
    Duration frozenAt,
    long callsOk,
    long callsFailedBeforeFreeze,
    Duration lastReplyBeforeFreeze,
    String callFailure,
    Duration callFailedAfter,
    Duration closedAfter,
    Duration waited,
    long bytesForwardedAfterFreeze) {

  public FrozenPeerReport {
    Objects.requireNonNull(scenario);
    Objects.requireNonNull(readerIdle);
    Objects.requireNonNull(idleTimeout);
    timeline = List.copyOf(timeline);
  }

  /**
   * The latest the client should notice: silence of idleTimeout, plus up to a readerIdle of slack.
   */
  public Duration bound() {
    return idleTimeout.plus(readerIdle);
  }

  /**
   * Whether the pending call failed for the reason the heartbeat gives ("heartbeat: nothing read
   * for ... ms"), which proves the heartbeat rather than something else declared the peer dead.
   */
  public boolean callFailedByHeartbeat() {
    return callFailure != null && callFailure.contains("heartbeat");
  }

  /**
   * When the client declared the connection dead, since the freeze: the first of its state becoming
   * CLOSED and the pending call failing by the heartbeat; null when neither happened.
   */
  public Duration detectedAfter() {
    Duration byCall = callFailedByHeartbeat() ? callFailedAfter : null;
    if (byCall == null) {
      return closedAfter;
    }
    return closedAfter == null || byCall.compareTo(closedAfter) < 0 ? byCall : closedAfter;
  }

  /** "detected after 9.9 s; bound idleTimeout 10 s + readerIdle 3 s = 13 s", or why it was not. */
  public Verdict verdict() {
    String bound =
        String.format(
            Locale.ROOT,
            "bound idleTimeout %s + readerIdle %s = %s",
            human(idleTimeout),
            human(readerIdle),
            human(bound()));
    Duration detected = detectedAfter();
    if (detected == null) {
      return new Verdict(
          false,
          "a frozen peer is detected within idleTimeout + readerIdle",
          "not detected within " + human(waited) + " of the freeze; " + bound);
    }
    return new Verdict(
        detected.compareTo(bound()) <= 0,
        "a frozen peer is detected within idleTimeout + readerIdle",
        "detected after " + human(detected) + "; " + bound);
  }

  /**
   * A duration as a person writes it: "10 s" or "300 ms" when whole, else one decimal of a second
   * ("9.9 s"), or whole milliseconds under a second.
   */
  static String human(Duration d) {
    long millis = d.toMillis();
    if (millis % 1000 == 0) {
      return millis / 1000 + " s";
    }
    if (millis < 1000) {
      return millis + " ms";
    }
    return String.format(Locale.ROOT, "%.1f s", d.toNanos() / 1e9);
  }
}
