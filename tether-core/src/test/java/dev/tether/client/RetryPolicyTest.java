package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.Attempt.Outcome;
import dev.tether.client.RetryPolicy.Decision;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The at-most-once rule's table, row by row, against the pure decision: no sockets. */
class RetryPolicyTest {
  private static final Outcome[] ATTEMPT_OUTCOMES = {
    Outcome.CONNECT_FAILED,
    Outcome.NOT_SENT,
    Outcome.REFUSED,
    Outcome.NOT_FOUND,
    Outcome.LOST_AFTER_SEND,
    Outcome.ATTEMPT_TIMEOUT,
    Outcome.SERVER_FAILED
  };

  /** A call of a load-balanced group, where that matters (a node lacking the service). */
  private static Decision decide(
      Outcome o, boolean idempotent, boolean pinned, boolean deadlinePassed, boolean budget) {
    return RetryPolicy.decide(o, idempotent, pinned, true, deadlinePassed, () -> budget);
  }

  @Test
  void notFoundOnOneNodeOfAGroupGoesToAPeerIdempotentOrNot() { // it provably did not run there
    for (boolean idempotent : new boolean[] {true, false}) {
      assertThat(decide(Outcome.NOT_FOUND, idempotent, false, false, true))
          .isEqualTo(Decision.RETRY);
    }
  }

  @Test
  void notFoundFromAProxysOnlyServerEndsTheCall() { // the same deployment would answer the same
    for (boolean idempotent : new boolean[] {true, false}) {
      assertThat(RetryPolicy.decide(Outcome.NOT_FOUND, idempotent, false, false, false, () -> true))
          .isEqualTo(Decision.FAIL);
    }
  }

  @Test
  void requestThatProvablyDidNotRunIsRetriedIdempotentOrNot() {
    for (boolean idempotent : new boolean[] {true, false}) {
      assertThat(decide(Outcome.NOT_SENT, idempotent, false, false, true))
          .isEqualTo(Decision.RETRY);
      assertThat(decide(Outcome.REFUSED, idempotent, false, false, true)).isEqualTo(Decision.RETRY);
    }
  }

  @Test
  void requestLostAfterSendIsRetriedOnlyWhenIdempotent() {
    assertThat(decide(Outcome.LOST_AFTER_SEND, true, false, false, true)).isEqualTo(Decision.RETRY);
    assertThat(decide(Outcome.LOST_AFTER_SEND, false, false, false, true)).isEqualTo(Decision.FAIL);
  }

  @Test
  void attemptTimeoutAndServerFailureAreRetriedOnlyWhenIdempotent() {
    for (Outcome o : new Outcome[] {Outcome.ATTEMPT_TIMEOUT, Outcome.SERVER_FAILED}) {
      assertThat(decide(o, true, false, false, true)).isEqualTo(Decision.RETRY);
      assertThat(decide(o, false, false, false, true)).isEqualTo(Decision.FAIL);
    }
  }

  @Test
  void connectFailureIsNotRetriedBecauseTheWalkAlreadyTriedEveryEndpointAndRound() {
    assertThat(decide(Outcome.CONNECT_FAILED, true, false, false, true)).isEqualTo(Decision.FAIL);
  }

  @Test
  void pinnedCallIsNeverMovedEvenWhenItProvablyDidNotRun() { // a session's call, a stream's RESUME
    for (Outcome o : new Outcome[] {Outcome.REFUSED, Outcome.NOT_SENT, Outcome.LOST_AFTER_SEND}) {
      assertThat(decide(o, true, true, false, true)).isEqualTo(Decision.FAIL);
    }
  }

  @Test
  void passedDeadlineEndsEvenASafeRetry() {
    assertThat(decide(Outcome.NOT_SENT, true, false, true, true)).isEqualTo(Decision.FAIL);
  }

  @Test
  void spentBudgetFailsASafeRetryWithItsOwnDecision() {
    assertThat(decide(Outcome.REFUSED, false, false, false, false))
        .isEqualTo(Decision.FAIL_BUDGET_SPENT);
  }

  /**
   * Every combination: the decision matches the table stated independently, and the budget is asked
   * exactly when every other rule allows the retry, so a refused retry spends no token.
   */
  @Test
  void everyRowTimesIdempotentInSessionInGroupDeadlineAndBudgetMatchesTheTable() {
    List<String> checked = new ArrayList<>();
    for (Outcome o : ATTEMPT_OUTCOMES) {
      for (boolean idempotent : new boolean[] {true, false}) {
        for (boolean inSession : new boolean[] {true, false}) {
          for (boolean balanced : new boolean[] {true, false}) {
            for (boolean deadlinePassed : new boolean[] {true, false}) {
              for (boolean budgetLeft : new boolean[] {true, false}) {
                boolean cannotHaveRun =
                    o == Outcome.NOT_SENT
                        || o == Outcome.REFUSED
                        || (o == Outcome.NOT_FOUND && balanced);
                boolean mayHaveRun =
                    o == Outcome.LOST_AFTER_SEND
                        || o == Outcome.ATTEMPT_TIMEOUT
                        || o == Outcome.SERVER_FAILED;
                boolean safe = cannotHaveRun || (mayHaveRun && idempotent);
                boolean allowed = safe && !inSession && !deadlinePassed;
                Decision expected =
                    !allowed
                        ? Decision.FAIL
                        : budgetLeft ? Decision.RETRY : Decision.FAIL_BUDGET_SPENT;
                AtomicInteger asked = new AtomicInteger();
                Decision actual =
                    RetryPolicy.decide(
                        o,
                        idempotent,
                        inSession,
                        balanced,
                        deadlinePassed,
                        () -> {
                          asked.incrementAndGet();
                          return budgetLeft;
                        });
                String row =
                    o
                        + " idempotent="
                        + idempotent
                        + " session="
                        + inSession
                        + " balanced="
                        + balanced
                        + " deadline="
                        + deadlinePassed
                        + " budget="
                        + budgetLeft;
                assertThat(actual).as(row).isEqualTo(expected);
                assertThat(asked.get()).as(row + ": budget asked").isEqualTo(allowed ? 1 : 0);
                checked.add(row);
              }
            }
          }
        }
      }
    }
    assertThat(checked).hasSize(ATTEMPT_OUTCOMES.length * 2 * 2 * 2 * 2 * 2);
  }

  @Test
  void aSessionCallThatNeverLeftGoesBackToItsSessionWhileOneThatLeftStaysPinned() {
    assertThat(RetryPolicy.pinned(true, false, Outcome.NOT_SENT)).isFalse();
    assertThat(RetryPolicy.pinned(true, false, Outcome.LOST_AFTER_SEND)).isTrue();
    assertThat(RetryPolicy.pinned(true, false, Outcome.REFUSED)).isTrue();
    assertThat(RetryPolicy.pinned(false, true, Outcome.NOT_SENT)).isTrue();
    assertThat(RetryPolicy.pinned(false, false, Outcome.LOST_AFTER_SEND)).isFalse();
  }
}
