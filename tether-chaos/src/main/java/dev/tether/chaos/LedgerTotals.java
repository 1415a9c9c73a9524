package dev.tether.chaos;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A ledger's totals: calls by kind and outcome, executions, and the counts of what must never
 * happen. {@link #violations()} is empty when the run kept every promise.
 *
 * @param excusedFailures idempotent failures during a moment when no node was up: allowed
 * @param sickAnswersBalanced round-robin calls answered with a sick node's error: allowed until the
 *     group ejects the node, which {@link ChaosReport} bounds
 * @param sickAnswersPinned pinned calls (primary, session) answered with a sick node's error
 * @param notFoundBalanced round-robin calls failed with SERVICE_NOT_FOUND: never allowed, since the
 *     plan keeps peers that serve
 * @param notFoundPinned pinned calls failed with SERVICE_NOT_FOUND, as a pinned proxy does
 * @param unknownExecutions executions of ids the ledger never handed out (a corrupted payload)
 * @param completedTwice calls whose caller was told two outcomes (a future completed twice)
 */
public record LedgerTotals(
    long calls,
    long[][] byKindAndOutcome,
    long executions,
    long duplicates,
    long falseNotExecuted,
    long answeredNotRun,
    long idempotentFailures,
    long excusedFailures,
    long otherFailures,
    long sickAnswersBalanced,
    long sickAnswersPinned,
    long notFoundBalanced,
    long notFoundPinned,
    long lost,
    long unknownExecutions,
    long completedTwice,
    Map<String, Long> failureTypes,
    List<String> examples) {

  /** Calls of {@code kind} told {@code outcome}. */
  public long count(CallKind kind, Outcome outcome) {
    return byKindAndOutcome[kind.ordinal()][outcome.ordinal()];
  }

  /** Calls told {@code outcome}, every kind. */
  public long count(Outcome outcome) {
    long sum = 0;
    for (CallKind kind : CallKind.values()) {
      sum += count(kind, outcome);
    }
    return sum;
  }

  /** One line per broken promise; empty when there is none. */
  public List<String> violations() {
    return new Violations()
        .count(duplicates, "duplicate executions of non-idempotent calls")
        .count(falseNotExecuted, "non-idempotent calls reported as not executed that did execute")
        .count(answeredNotRun, "calls answered OK that no server ran")
        .count(idempotentFailures, "idempotent calls failed while a node was up")
        .count(otherFailures, "calls failed with an unexpected error")
        .count(
            notFoundBalanced, "round-robin calls failed with SERVICE_NOT_FOUND though peers serve")
        .count(lost, "calls that never completed")
        .count(unknownExecutions, "executions of unknown request ids")
        .count(completedTwice, "calls completed twice")
        .lines();
  }

  /** The ledger's table, as the chaos run prints it. */
  public void print(PrintStream out) {
    out.printf(
        Locale.ROOT,
        "%-24s %9s %9s %12s %9s %9s %12s %9s %9s%n",
        "calls by kind",
        "ok",
        "not-exec",
        "may-have-run",
        "sick",
        "not-found",
        "other-fail",
        "pending",
        "total");
    for (CallKind kind : CallKind.values()) {
      long total = 0;
      for (Outcome o : Outcome.values()) {
        total += count(kind, o);
      }
      out.printf(
          Locale.ROOT,
          "%-24s %9d %9d %12d %9d %9d %12d %9d %9d%n",
          kind.label,
          count(kind, Outcome.OK),
          count(kind, Outcome.NOT_EXECUTED),
          count(kind, Outcome.MAY_HAVE_EXECUTED),
          count(kind, Outcome.SICK_ANSWER),
          count(kind, Outcome.NOT_FOUND),
          count(kind, Outcome.OTHER_FAILURE),
          count(kind, Outcome.PENDING),
          total);
    }
    out.printf(
        Locale.ROOT,
        "%-24s %9d %9d %12d %9d %9d %12d %9d %9d%n",
        "all",
        count(Outcome.OK),
        count(Outcome.NOT_EXECUTED),
        count(Outcome.MAY_HAVE_EXECUTED),
        count(Outcome.SICK_ANSWER),
        count(Outcome.NOT_FOUND),
        count(Outcome.OTHER_FAILURE),
        count(Outcome.PENDING),
        calls);
    out.printf(
        Locale.ROOT,
        "server executions %d; duplicates %d; reported not-executed but ran %d;"
            + " answered but not run %d; idempotent failures while a node was up %d (excused, no "
            + "node up: %d);"
            + " unexpected failures %d; sick answers %d round-robin, %d pinned;"
            + " service not found %d round-robin, %d pinned; lost (never completed) %d%n",
        executions,
        duplicates,
        falseNotExecuted,
        answeredNotRun,
        idempotentFailures,
        excusedFailures,
        otherFailures,
        sickAnswersBalanced,
        sickAnswersPinned,
        notFoundBalanced,
        notFoundPinned,
        lost);
    if (!failureTypes.isEmpty()) {
      out.println("failures by type:");
      failureTypes.forEach((type, n) -> out.printf(Locale.ROOT, "  %-60s %d%n", type, n));
    }
    if (!examples.isEmpty()) {
      out.println("first problems:");
      examples.forEach(e -> out.println("  " + e));
    }
  }
}
