package dev.tether.client;

import dev.tether.Attempt;
import dev.tether.TetherException;
import java.util.ArrayList;
import java.util.List;

/**
 * What one call learned from its failed attempts: each attempt and why it failed (what its
 * exception lists), the latest cause, and the connection key the latest one failed on, which its
 * {@link EndpointWalk} takes as tried. Made on the call's first failed attempt, inside its {@link
 * CallExtras}, so a call that succeeds at once never has one. Changed by whichever thread ends or
 * hands over an attempt, one at a time.
 */
final class RetryHistory {
  private int retries;

  /** The key the latest failed attempt ran on, until the walk takes it; null for none. */
  private ConnectionKey failedOn;

  /** Why the latest attempt failed; null before the first failure. */
  private TetherException latestCause;

  private final List<Attempt> attempts = new ArrayList<>(2);

  /** An attempt on {@code where} ("" for none) ended as {@code outcome}. */
  void record(String where, Attempt.Outcome outcome, String reason) {
    attempts.add(new Attempt(where, outcome, reason));
  }

  /** Every failed attempt, oldest first, as the call's exception lists them. */
  List<Attempt> attempts() {
    return attempts;
  }

  /**
   * The call goes again after {@code cause}, away from {@code failedOn} (null when no connection
   * was found).
   */
  void onRetry(TetherException cause, ConnectionKey failedOn) {
    retries++;
    latestCause = cause;
    this.failedOn = failedOn;
  }

  /** The key the latest failed attempt ran on, once; null when there is none to take. */
  ConnectionKey takeFailedOn() {
    ConnectionKey k = failedOn;
    failedOn = null;
    return k;
  }

  /** What became of the latest failed attempt; null before the first. */
  Attempt.Outcome latestOutcome() {
    return attempts.isEmpty() ? null : attempts.get(attempts.size() - 1).outcome();
  }

  /**
   * The servers that answered {@code outcome}, each once, in the order they first did so (as the
   * attempts name them).
   */
  List<String> answeredBy(Attempt.Outcome outcome) {
    List<String> where = new ArrayList<>(attempts.size());
    for (Attempt a : attempts) {
      if (a.outcome() == outcome && !where.contains(a.endpoint())) {
        where.add(a.endpoint());
      }
    }
    return where;
  }

  int retries() {
    return retries;
  }

  TetherException latestCause() {
    return latestCause;
  }
}
