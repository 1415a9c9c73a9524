package dev.tether.client;

import dev.tether.protocol.Batch;
import dev.tether.protocol.Request;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Batch-oneway requests waiting on one connection for {@code flushBatch()} (seed 000's batch
 * modes). A queued call completes at once: like any oneway call it gets no answer, and the caller
 * decides when the batch leaves.
 */
final class BatchQueue {
  private final ConcurrentLinkedQueue<Invocation> queued = new ConcurrentLinkedQueue<>();

  void add(Invocation inv) {
    queued.add(inv);
    inv.succeed(Invocation.EMPTY);
  }

  /** Everything queued so far as one BATCH frame, or null when nothing is queued. */
  Batch drain() {
    List<Request> requests = new ArrayList<>();
    Invocation inv;
    while ((inv = queued.poll()) != null) {
      requests.add(inv.toRequest());
    }
    return requests.isEmpty() ? null : new Batch(requests);
  }
}
