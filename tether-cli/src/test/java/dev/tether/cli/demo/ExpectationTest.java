package dev.tether.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ExpectationTest {
  private static final String LOST = "ConnectionLostException mayHaveExecuted=true";

  /**
   * A run of 100 puts, 100 gets and {@code incrementsOk} acknowledged increments on one server that
   * executed {@code incrementsExecuted} increments.
   */
  private static DemoReport report(
      Map<String, Long> putFailures,
      long incrementsOk,
      Map<String, Long> incrementFailures,
      long incrementFailuresThatMayHaveExecuted,
      long incrementsExecuted) {
    long idempotentOk = 200;
    return new DemoReport(
        Scenarios.ABRUPT_KILLS,
        8,
        Duration.ofSeconds(3),
        Duration.ofSeconds(3),
        Duration.ofSeconds(2),
        200,
        "kv:tcp -h 127.0.0.1 -p 1",
        List.of(),
        List.of(
            new DemoReport.OperationCounts("put", true, 100, putFailures),
            new DemoReport.OperationCounts("get", true, 100, Map.of()),
            new DemoReport.OperationCounts("increment", false, incrementsOk, incrementFailures)),
        List.of(
            new DemoReport.ServerCounts(
                "server-1",
                "restarted at 1.0 s",
                idempotentOk + incrementsExecuted,
                idempotentOk + incrementsOk,
                incrementsExecuted)),
        incrementFailuresThatMayHaveExecuted,
        incrementsExecuted,
        100,
        0,
        true);
  }

  @Test
  void aRunWithoutFailuresMeetsEveryExpectation() {
    DemoReport r = report(Map.of(), 50, Map.of(), 0, 50);

    for (Expectation e : Expectation.values()) {
      assertThat(e.judge(r).met()).as(e.name()).isTrue();
    }
    assertThat(Expectation.NO_CALL_FAILS.judge(r).evidence()).isEqualTo("0 of 250 calls failed");
    assertThat(Expectation.NO_DUPLICATE_INCREMENTS.judge(r).evidence())
        .isEqualTo(
            "executed 50 - acknowledged 50 - failed with may-have-executed 0 = 0 duplicates");
    assertThat(Expectation.INCREMENT_FAILURES_ARE_ONLY_LOST_AFTER_SEND.judge(r).evidence())
        .isEqualTo("no increment failed");
  }

  @Test
  void anIncrementThatRanOnceMoreThanTheCallersCanKnowIsADuplicate() {
    DemoReport r = report(Map.of(), 50, Map.of(LOST, 1L), 1, 52);

    Verdict v = Expectation.NO_DUPLICATE_INCREMENTS.judge(r);

    assertThat(v.met()).isFalse();
    assertThat(v.label()).isEqualTo("FAIL");
    assertThat(v.evidence())
        .isEqualTo(
            "executed 52 - acknowledged 50 - failed with may-have-executed 1 = 1 duplicates");
    assertThat(r.duplicateIncrements()).isEqualTo(1);
    assertThat(Expectation.EXECUTIONS_WITHIN_ACKNOWLEDGED_PLUS_LOST.judge(r).met()).isFalse();
    assertThat(Expectation.INCREMENT_FAILURES_ARE_ONLY_LOST_AFTER_SEND.judge(r).evidence())
        .isEqualTo("the 1 failed increment is of that kind");
  }

  @Test
  void lostIncrementsThatNeverRanAreNoDuplicatesAndStayWithinTheBound() {
    DemoReport r = report(Map.of(), 50, Map.of(LOST, 3L), 3, 51);

    assertThat(Expectation.NO_DUPLICATE_INCREMENTS.judge(r).met()).isTrue();
    assertThat(Expectation.NO_DUPLICATE_INCREMENTS.judge(r).evidence())
        .endsWith("= -2: 0 duplicates");
    assertThat(Expectation.INCREMENT_FAILURES_ARE_ONLY_LOST_AFTER_SEND.judge(r).evidence())
        .isEqualTo("all 3 failed increments are");
    Verdict bound = Expectation.EXECUTIONS_WITHIN_ACKNOWLEDGED_PLUS_LOST.judge(r);
    assertThat(bound.met()).isTrue();
    assertThat(bound.evidence()).isEqualTo("51 <= 50 + 3");
    assertThat(Expectation.NO_CALL_FAILS.judge(r).met()).isFalse();
  }

  @Test
  void anIncrementFailingAnyOtherWayBreaksTheRuleAndIsNamed() {
    DemoReport r = report(Map.of(), 50, Map.of(LOST, 1L, "InvocationTimeoutException", 2L), 3, 50);

    Verdict v = Expectation.INCREMENT_FAILURES_ARE_ONLY_LOST_AFTER_SEND.judge(r);

    assertThat(v.met()).isFalse();
    assertThat(v.evidence())
        .isEqualTo("2 of 3 failed increments were something else: InvocationTimeoutException 2");
  }

  @Test
  void aFailedIdempotentCallBreaksItsRuleWhateverTheIncrementsDid() {
    DemoReport r = report(Map.of("ConnectFailedException", 1L), 50, Map.of(), 0, 50);

    Verdict v = Expectation.IDEMPOTENT_CALLS_NEVER_FAIL.judge(r);

    assertThat(v.met()).isFalse();
    assertThat(v.evidence())
        .isEqualTo("1 of 201 idempotent calls failed: ConnectFailedException 1");
    assertThat(Expectation.INCREMENT_FAILURES_ARE_ONLY_LOST_AFTER_SEND.judge(r).met()).isTrue();
    assertThat(r.expectationsMet()).isFalse();
  }
}
