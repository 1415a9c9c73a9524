package dev.tether.client;

import dev.tether.TetherException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * The {@link TetherException} a failed future stands for: the completion and execution wrappers
 * peeled off, and anything that is not a TetherException wrapped in one.
 */
final class FailureCause {
  private FailureCause() {}

  static TetherException of(Throwable t) {
    Throwable cause = t;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause instanceof TetherException te
        ? te
        : new TetherException(String.valueOf(cause), cause);
  }
}
