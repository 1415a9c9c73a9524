package dev.tether.client;

import dev.tether.Attempt;
import java.util.function.BooleanSupplier;

/**
 * The at-most-once rule as a pure function: given what became of an attempt and what is known of
 * the call, whether it may run again. One guard clause per table row; the retry budget is asked
 * last, only when every rule already allows the retry, so a refused retry never spends a token.
 */
final class RetryPolicy {
  /** What to do with a call whose attempt failed. */
  enum Decision {
    /** Send it again, on the next endpoint or node. */
    RETRY,
    /** Fail with the attempt's cause: a rule forbids another attempt. */
    FAIL,
    /** Every rule allows a retry but the retry budget is spent: fail with the attempt's cause. */
    FAIL_BUDGET_SPENT
  }

  private RetryPolicy() {}

  private static boolean mayHaveRun(Attempt.Outcome outcome) {
    return outcome == Attempt.Outcome.LOST_AFTER_SEND
        || outcome == Attempt.Outcome.ATTEMPT_TIMEOUT
        || outcome == Attempt.Outcome.SERVER_FAILED;
  }

  /**
   * Whether only the call's own server may answer it: a session's call (its state lives on its
   * connection) or a stream's RESUME. A session's call that never left is not: it goes back to the
   * session, which resends it or, its connection gone, reports the session lost.
   */
  static boolean pinned(boolean inSession, boolean resuming, Attempt.Outcome outcome) {
    return (inSession && outcome != Attempt.Outcome.NOT_SENT) || resuming;
  }

  /**
   * @param outcome what became of the attempt (BUDGET_EXHAUSTED is not an attempt outcome)
   * @param idempotent the call declared that running it twice is harmless
   * @param pinned the call belongs to one server: a session's (whose state lives on its connection)
   *     or a stream's RESUME (the stream lives on that server, which retries it there itself)
   * @param balanced the call is spread over the nodes of a load-balanced group, whose peers may
   *     serve what one node lacks
   * @param deadlinePassed the invocation timeout has passed
   * @param budget takes one retry token; asked only when the answer decides
   */
  static Decision decide(
      Attempt.Outcome outcome,
      boolean idempotent,
      boolean pinned,
      boolean balanced,
      boolean deadlinePassed,
      BooleanSupplier budget) {
    // Establishment already walked every endpoint for every round before reporting a connect
    // failure.
    if (outcome == Attempt.Outcome.CONNECT_FAILED) {
      return Decision.FAIL;
    }
    // A session's state, a detached stream live on one server: never move their calls silently.
    if (pinned) {
      return Decision.FAIL;
    }
    // No such service or operation ran nothing, but only a peer of a group may answer otherwise: a
    // proxy's only server (or its failover list of the same deployment) would answer the same.
    if (outcome == Attempt.Outcome.NOT_FOUND && !balanced) {
      return Decision.FAIL;
    }
    // Sent, then the connection broke, the attempt timed out or the server failed it: the server
    // may have run it; run it twice only if that is harmless.
    if (mayHaveRun(outcome) && !idempotent) {
      return Decision.FAIL;
    }
    // Not sent, refused, not found on one node of a group, or lost while idempotent: safe. Past the
    // deadline nobody waits for it.
    if (deadlinePassed) {
      return Decision.FAIL;
    }
    // Safe and wanted; retries are rationed so a sick cluster does not get a storm of them.
    return budget.getAsBoolean() ? Decision.RETRY : Decision.FAIL_BUDGET_SPENT;
  }
}
