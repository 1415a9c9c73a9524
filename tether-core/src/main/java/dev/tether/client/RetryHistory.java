package dev.tether.client;

import dev.tether.Attempt;
import dev.tether.TetherException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What one call learned from its failed attempts: each attempt and why it failed (what its
 * exception lists), the connections this round of attempts failed on, which round runs, and the
 * latest cause. Made on the call's first failed attempt, inside its {@link CallExtras}, so a call
 * that succeeds at once never has one. Changed by whichever thread ends or hands over an attempt,
 * one at a time.
 */
final class RetryHistory {
  private int retries;

  /** Which round of attempts runs: 0 first, one more per retry interval. */
  private int round;

  /**
   * Connections this round's attempts failed on, or that the call must not use (a hedge's
   * siblings').
   */
  private final Set<ConnectionKey> triedThisRound = new HashSet<>();

  /** Why the latest attempt failed; null before the first failure. */
  private TetherException latestCause;

  /** True once the call, its cluster view exhausted, went back to the configured servers. */
  private boolean configuredTried;

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
    if (failedOn != null) {
      triedThisRound.add(failedOn);
    }
  }

  /** No connection could be had to {@code candidates}: they count as tried this round. */
  void onConnectFailed(TetherException cause, List<Candidate> candidates, String connectionId) {
    latestCause = cause;
    for (Candidate c : candidates) {
      triedThisRound.add(c.key(connectionId));
    }
  }

  /** The candidates this round has not failed on yet, in selection order. */
  List<Candidate> untried(List<Candidate> candidates, String connectionId) {
    List<Candidate> out = new ArrayList<>(candidates.size());
    for (Candidate c : candidates) {
      if (!triedThisRound.contains(c.key(connectionId))) {
        out.add(c);
      }
    }
    return out;
  }

  Set<ConnectionKey> tried() {
    return triedThisRound;
  }

  int retries() {
    return retries;
  }

  int round() {
    return round;
  }

  /** A new round tries every endpoint again. */
  void beginNextRound() {
    round++;
    triedThisRound.clear();
  }

  TetherException latestCause() {
    return latestCause;
  }

  /** True the first time only: a call goes back to its configured servers at most once. */
  boolean takeConfiguredFallback() {
    if (configuredTried) {
      return false;
    }
    configuredTried = true;
    return true;
  }
}
