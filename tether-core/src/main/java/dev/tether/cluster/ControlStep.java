package dev.tether.cluster;

import dev.tether.internal.SerialExecutor;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

/**
 * Runs one step of a group's routing on the control executor and hands back the future it returns,
 * unwrapped; a step that throws fails that future, so no call waits on a step that threw.
 */
final class ControlStep {
  private ControlStep() {}

  static <T> CompletableFuture<T> run(SerialExecutor control, Supplier<CompletableFuture<T>> step) {
    CompletableFuture<T> result = new CompletableFuture<>();
    control.execute(
        () ->
            orFailure(step)
                .whenComplete(
                    (v, e) -> {
                      if (e != null) {
                        result.completeExceptionally(
                            e instanceof CompletionException && e.getCause() != null
                                ? e.getCause()
                                : e);
                      } else {
                        result.complete(v);
                      }
                    }));
    return result;
  }

  private static <T> CompletableFuture<T> orFailure(Supplier<CompletableFuture<T>> step) {
    try {
      return step.get();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }
}
