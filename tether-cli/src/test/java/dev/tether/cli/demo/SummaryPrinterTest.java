package dev.tether.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SummaryPrinterTest {

  private static DemoReport report(
      long incrementsExecuted,
      long incrementsAcknowledged,
      long failedMayHaveExecuted,
      long counter) {
    return new DemoReport(
        Scenarios.ABRUPT_STOP,
        4,
        Duration.ofSeconds(10),
        Duration.ofMillis(10_020),
        Duration.ofSeconds(2),
        200,
        "kv:tcp -h 127.0.0.1 -p 1:tcp -h 127.0.0.1 -p 2",
        List.of(new Timeline.Event(Duration.ZERO, "started")),
        List.of(
            new DemoReport.OperationCounts("put", true, 400, Map.of()),
            new DemoReport.OperationCounts("get", true, 400, Map.of()),
            new DemoReport.OperationCounts(
                "increment",
                false,
                incrementsAcknowledged,
                failedMayHaveExecuted == 0
                    ? Map.of()
                    : Map.of(
                        "ConnectionLostException mayHaveExecuted=true", failedMayHaveExecuted))),
        List.of(
            new DemoReport.ServerCounts("server-1", "running", 800, 800, 0),
            new DemoReport.ServerCounts(
                "server-2",
                "closed at 5.0 s",
                incrementsExecuted,
                incrementsAcknowledged,
                incrementsExecuted)),
        failedMayHaveExecuted,
        counter,
        400,
        0,
        true);
  }

  private static String print(DemoReport r) {
    StringWriter text = new StringWriter();
    SummaryPrinter.print(r, new PrintWriter(text));
    return text.toString();
  }

  @Test
  void incrementsThatRanUnacknowledgedButWereReportedAsMayHaveExecutedPassTheCheck() {
    String text = print(report(200, 198, 2, 200));

    assertThat(text)
        .contains("executed on servers 200, acknowledged to callers 198, counter 200")
        .contains(
            "198 <= 200 <= 198 + 2 failed with may-have-executed: none lost or doubled unseen")
        .contains("ConnectionLostException mayHaveExecuted=true")
        .contains("no answer: ran, but the reply died with the connection");
  }

  @Test
  void anIncrementThatRanWithoutItsCallerBeingWarnedFailsTheCheckVisibly() {
    String text = print(report(201, 198, 2, 201));

    assertThat(text).contains("CHECK FAILED").doesNotContain("none lost or doubled unseen");
  }

  @Test
  void aCounterDisagreeingWithTheServersFailsTheCheck() {
    assertThat(print(report(200, 198, 2, 199))).contains("CHECK FAILED");
  }

  @Test
  void aRunWithoutFailuresSaysSoAndSkipsTheNoAnswerNote() {
    String text = print(report(200, 200, 0, 200));

    assertThat(text).contains("failures     none").doesNotContain("no answer: ran");
  }

  @Test
  void failuresAreSplitIntoIdempotentAndNotIdempotentColumns() {
    String text = print(report(200, 198, 2, 200));

    assertThat(text)
        .containsPattern("failures by exception\\s+idempotent\\s+not idempotent")
        .containsPattern("\\n  ConnectionLostException mayHaveExecuted=true\\s+0\\s+2\\n");
  }

  @Test
  void aScenarioWithoutExpectationsPrintsNoVerdict() {
    assertThat(print(report(200, 200, 0, 200))).doesNotContain("verdict");
  }

  @Test
  void verdictsListEachExpectationWithItsEvidenceThenTheOutcome() {
    StringWriter text = new StringWriter();
    SummaryPrinter.printVerdicts(
        "rolling-restart",
        List.of(
            new Verdict(true, "no call fails", "0 of 9 calls failed"),
            new Verdict(false, "no increment runs twice", "1 duplicates")),
        new PrintWriter(text));

    assertThat(text.toString())
        .isEqualTo(
            String.format(
                "%nexpected     what rolling-restart must show%n"
                    + "  PASS  no call fails: 0 of 9 calls failed%n"
                    + "  FAIL  no increment runs twice: 1 duplicates%n"
                    + "verdict      FAIL: 1 of 2 expectations met%n"));
  }
}
