package dev.tether.cli.demo;

import static dev.tether.cli.demo.SummaryPrinter.count;

import java.util.Map;
import java.util.stream.Collectors;

/**
 * A claim a cluster scenario makes about its own run, judged from the figures of both sides once
 * every caller stopped. Each judgement keeps its evidence, which the summary prints next to the
 * verdict.
 */
public enum Expectation {
  /** A graceful restart drains: GOAWAY, refused requests retried elsewhere, no call lost. */
  NO_CALL_FAILS,
  /**
   * No increment ran more often than the callers could know of: executed minus acknowledged minus
   * failures that said "may have executed" is not positive.
   */
  NO_DUPLICATE_INCREMENTS,
  /** While one server is up, Tether retries an idempotent call until it lands somewhere. */
  IDEMPOTENT_CALLS_NEVER_FAIL,
  /**
   * A non-idempotent call is retried while no attempt can have run (the at-most-once rule), so the
   * only failure left is a connection lost after the request was sent.
   */
  INCREMENT_FAILURES_ARE_ONLY_LOST_AFTER_SEND,
  /** Increments executed never exceed those acknowledged plus those lost after being sent. */
  EXECUTIONS_WITHIN_ACKNOWLEDGED_PLUS_LOST,
  /**
   * Every call returned or failed before the callers were due to stop: none hung past its timeout.
   */
  EVERY_CALL_COMPLETED;

  /** Judges {@code r} against this claim. */
  public Verdict judge(DemoReport r) {
    return switch (this) {
      case NO_CALL_FAILS ->
          new Verdict(
              r.failed() == 0,
              "no call fails",
              count(r.failed()) + " of " + count(r.total()) + " calls failed");
      case NO_DUPLICATE_INCREMENTS -> noDuplicateIncrements(r);
      case IDEMPOTENT_CALLS_NEVER_FAIL ->
          new Verdict(
              r.idempotentFailed() == 0,
              "idempotent calls never fail while a server is up",
              count(r.idempotentFailed())
                  + " of "
                  + count(r.idempotentTotal())
                  + " idempotent calls failed"
                  + describe(r.failuresByKind(true)));
      case INCREMENT_FAILURES_ARE_ONLY_LOST_AFTER_SEND -> incrementFailuresAreOnlyLostAfterSend(r);
      case EXECUTIONS_WITHIN_ACKNOWLEDGED_PLUS_LOST ->
          new Verdict(
              r.incrementsExecuted() <= r.incrementsAcknowledged() + r.incrementsLostAfterSend(),
              "increments executed <= acknowledged + lost after send",
              count(r.incrementsExecuted())
                  + " <= "
                  + count(r.incrementsAcknowledged())
                  + " + "
                  + count(r.incrementsLostAfterSend()));
      case EVERY_CALL_COMPLETED ->
          new Verdict(
              r.callersStoppedInTime(),
              "every call completed",
              r.callersStoppedInTime()
                  ? "all "
                      + count(r.total())
                      + " calls returned or failed; no caller was left inside a call"
                  : "a caller was still inside a call when the phase ended");
    };
  }

  private static Verdict noDuplicateIncrements(DemoReport r) {
    long difference =
        r.incrementsExecuted()
            - r.incrementsAcknowledged()
            - r.incrementFailuresThatMayHaveExecuted();
    String sum =
        "executed "
            + count(r.incrementsExecuted())
            + " - acknowledged "
            + count(r.incrementsAcknowledged())
            + " - failed with may-have-executed "
            + count(r.incrementFailuresThatMayHaveExecuted())
            + " = ";
    // Negative when some failures that may have executed did not: fewer runs than allowed, none
    // doubled.
    return new Verdict(
        difference <= 0,
        "no increment runs twice",
        difference < 0
            ? sum + count(difference) + ": 0 duplicates"
            : sum + count(difference) + " duplicates");
  }

  private static Verdict incrementFailuresAreOnlyLostAfterSend(DemoReport r) {
    String claim = "increments fail only with " + ClientTally.LOST_AFTER_SEND;
    long failed = r.failuresByKind(false).values().stream().mapToLong(Long::longValue).sum();
    long others = failed - r.incrementsLostAfterSend();
    if (failed == 0) {
      return new Verdict(true, claim, "no increment failed");
    }
    if (others == 0) {
      return new Verdict(
          true,
          claim,
          failed == 1
              ? "the 1 failed increment is of that kind"
              : "all " + count(failed) + " failed increments are");
    }
    Map<String, Long> otherKinds =
        r.failuresByKind(false).entrySet().stream()
            .filter(e -> !e.getKey().equals(ClientTally.LOST_AFTER_SEND))
            .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    return new Verdict(
        false,
        claim,
        count(others)
            + " of "
            + count(failed)
            + " failed increments were something else"
            + describe(otherKinds));
  }

  /** ": Kind 3, Other 1", or nothing when there is nothing to list. */
  private static String describe(Map<String, Long> kinds) {
    if (kinds.isEmpty()) {
      return "";
    }
    return kinds.entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .map(e -> e.getKey() + " " + count(e.getValue()))
        .collect(Collectors.joining(", ", ": ", ""));
  }
}
