package dev.tether.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class FrozenPeerReportTest {
  private static final String HEARTBEAT_FAILURE =
      "ConnectionLostException mayHaveExecuted=true: connection tcp -h"
          + " 127.0.0.1 -p 2 lost after increment was sent: heartbeat: nothing read for 10043 ms from tcp -h 127.0.0.1 -p 2";

  private static FrozenPeerReport report(
      String failure, Duration failedAfter, Duration closedAfter) {
    return new FrozenPeerReport(
        Scenarios.FROZEN_PEER,
        "kv:tcp -h 127.0.0.1 -p 2",
        "tcp -h 127.0.0.1 -p 1",
        Duration.ofSeconds(3),
        Duration.ofSeconds(10),
        "Tether's defaults, nothing overridden",
        List.of(),
        Duration.ofSeconds(2),
        20,
        0,
        Duration.ofMillis(40),
        failure,
        failedAfter,
        closedAfter,
        Duration.ofSeconds(12),
        0);
  }

  @Test
  void theDetectionIsPrintedWithItsBoundFromTheSettingsInForce() {
    FrozenPeerReport r =
        report(HEARTBEAT_FAILURE, Duration.ofMillis(11_820), Duration.ofMillis(11_800));

    assertThat(r.verdict().met()).isTrue();
    assertThat(r.verdict().evidence())
        .isEqualTo("detected after 11.8 s; bound idleTimeout 10 s + readerIdle 3 s = 13 s");
  }

  @Test
  void theEarlierOfTheClosedStateAndTheHeartbeatFailureCounts() {
    assertThat(
            report(HEARTBEAT_FAILURE, Duration.ofMillis(9_950), Duration.ofMillis(9_990))
                .detectedAfter())
        .isEqualTo(Duration.ofMillis(9_950));
    assertThat(report(HEARTBEAT_FAILURE, Duration.ofMillis(9_950), null).detectedAfter())
        .isEqualTo(Duration.ofMillis(9_950));
  }

  @Test
  void aCallFailingForAnotherReasonIsNoDetectionButTheClosedStateStillIs() {
    FrozenPeerReport r =
        report(
            "InvocationTimeoutException: slow", Duration.ofMillis(500), Duration.ofMillis(10_100));

    assertThat(r.callFailedByHeartbeat()).isFalse();
    assertThat(r.detectedAfter()).isEqualTo(Duration.ofMillis(10_100));
  }

  @Test
  void aDetectionPastTheBoundFails() {
    assertThat(report(HEARTBEAT_FAILURE, Duration.ofMillis(13_200), null).verdict().met())
        .isFalse();
  }

  @Test
  void noDetectionAtAllFailsAndSaysHowLongTheRunWaited() {
    Verdict v = report(null, null, null).verdict();

    assertThat(v.met()).isFalse();
    assertThat(v.evidence())
        .isEqualTo(
            "not detected within 12 s of the freeze; bound idleTimeout 10 s + readerIdle 3 s = 13 s");
  }

  @Test
  void theSummaryShowsTheSettingsTheCallsAndTheVerdict() {
    StringWriter text = new StringWriter();
    FrozenPeerPrinter.print(
        report(HEARTBEAT_FAILURE, Duration.ofMillis(10_020), Duration.ofMillis(10_010)),
        new PrintWriter(text));

    assertThat(text.toString())
        .contains(
            "ping after 3 s without reads (readerIdle), dead after 10 s without reads (idleTimeout)")
        .contains("Tether's defaults, nothing overridden")
        .contains(
            "20 answered, 0 failed before the freeze at 2.0 s; the last answer came 40 ms before it")
        .contains("the fault proxy moved 0 bytes")
        .contains("the pending increment failed after 10.0 s: " + HEARTBEAT_FAILURE)
        .contains("the connection's state became CLOSED after 10.0 s")
        .contains(
            "  PASS  a frozen peer is detected within idleTimeout + readerIdle: detected after 10.0 s;"
                + " bound idleTimeout 10 s + readerIdle 3 s = 13 s")
        .contains("verdict      PASS: 1 of 1 expectations met");
  }

  @Test
  void durationsReadAsAPersonWritesThem() {
    assertThat(FrozenPeerReport.human(Duration.ofSeconds(13))).isEqualTo("13 s");
    assertThat(FrozenPeerReport.human(Duration.ofMillis(300))).isEqualTo("300 ms");
    assertThat(FrozenPeerReport.human(Duration.ofMillis(11_849))).isEqualTo("11.8 s");
  }
}
