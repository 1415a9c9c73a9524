package dev.tether.client;

import dev.tether.TetherException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Supplier;

/**
 * The batch-oneway requests one proxy queued for its next {@code flushBatch()} (the batch modes; as
 * in Ice, the proxy queues them, not the connection, so one proxy's flush never sends another's
 * requests, and a connection that closes meanwhile loses none of them). A queued call completes at
 * once (its maker completes it): like any oneway call it gets no answer, and the caller decides
 * when the batch leaves. Safe from any thread.
 */
final class BatchQueue {
  private final ConcurrentLinkedQueue<CallAttempt> queued = new ConcurrentLinkedQueue<>();

  void add(CallAttempt call) {
    queued.add(call);
  }

  /** Takes everything queued so far, oldest first; empty when nothing is. */
  List<CallAttempt> drain() {
    List<CallAttempt> out = new ArrayList<>();
    CallAttempt call;
    while ((call = queued.poll()) != null) {
      out.add(call);
    }
    return out;
  }

  /**
   * Sends what is queued now, and only that, on the connection {@code connection} finds. None of it
   * was on the wire yet, so a connection that closed since the calls were queued loses nothing:
   * they go on the new one. Fails with {@link dev.tether.BatchLostException} naming how many were
   * not sent (no connection, a failed write, too large for the server, or {@code closing}); those
   * are no longer queued. {@code identity} names the proxy when no connection was found.
   */
  CompletableFuture<Void> flush(
      String identity, boolean closing, Supplier<CompletableFuture<RequestChannel>> connection) {
    List<CallAttempt> calls = drain();
    if (calls.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    if (closing) {
      return CompletableFuture.failedFuture(
          BatchFrames.lost(
              calls.size(), calls.size(), identity, new TetherException("the runtime is closed")));
    }
    return connection
        .get()
        .handle(
            (c, failure) ->
                failure == null
                    ? c.sendBatch(calls)
                    : CompletableFuture.<Void>failedFuture(
                        BatchFrames.lost(
                            calls.size(), calls.size(), identity, CallFailures.unwrap(failure))))
        .thenCompose(f -> f);
  }
}
