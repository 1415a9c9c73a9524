package dev.tether.client;

import dev.tether.TetherException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * How a call turns what failed it into an exception of its own: the failure a future completed
 * with, unwrapped, and a copy before the call adds to it, since a connect failure is one object
 * that every call which joined the dial receives.
 */
final class CallFailures {
  private CallFailures() {}

  /** The TetherException behind a future's failure; anything else wrapped in one. */
  static TetherException unwrap(Throwable t) {
    Throwable cause = t;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause instanceof TetherException te
        ? te
        : new TetherException(String.valueOf(cause), cause);
  }

  /** A copy of {@code shared}, of its class, that this call may add suppressed exceptions to. */
  static TetherException ownCopy(TetherException shared) {
    return shared.withAttempts(shared.attempts());
  }
}
