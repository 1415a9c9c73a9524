package dev.tether.client;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The calls that wait for a backing-off key's next attempt (they wait for ready): each follows that
 * attempt once it starts, or fails when the key shuts down. Belongs to its {@link
 * ConnectionSupervisor}, on the runtime's control executor.
 */
final class ReadyWaiters {
  private final List<CompletableFuture<RequestChannel>> waiting = new ArrayList<>(0);

  void add(CompletableFuture<RequestChannel> call) {
    waiting.add(call);
  }

  boolean isEmpty() {
    return waiting.isEmpty();
  }

  /** The next attempt started with {@code c}: every waiting call follows it. */
  void followAll(RequestChannel c) {
    for (CompletableFuture<RequestChannel> w : waiting) {
      follow(c, w);
    }
    waiting.clear();
  }

  /** The key shut down: every waiting call fails with {@code cause}. */
  void failAll(Throwable cause) {
    for (CompletableFuture<RequestChannel> w : waiting) {
      w.completeExceptionally(cause);
    }
    waiting.clear();
  }

  /** {@code result} completes as {@code c}'s attempt does. */
  static void follow(RequestChannel c, CompletableFuture<RequestChannel> result) {
    c.ready()
        .whenComplete(
            (ready, failure) -> {
              if (failure != null) {
                result.completeExceptionally(failure);
              } else {
                result.complete(ready);
              }
            });
  }
}
