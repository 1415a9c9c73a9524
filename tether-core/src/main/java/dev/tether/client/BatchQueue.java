package dev.tether.client;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The batch-oneway requests one proxy queued for its next {@code flushBatch()} (the batch modes; as
 * in Ice, the proxy queues them, not the connection, so one proxy's flush never sends another's
 * requests, and a connection that closes meanwhile loses none of them). A queued call completes at
 * once: like any oneway call it gets no answer, and the caller decides when the batch leaves. Safe
 * from any thread.
 */
final class BatchQueue {
  private final ConcurrentLinkedQueue<Invocation> queued = new ConcurrentLinkedQueue<>();

  void add(Invocation inv) {
    queued.add(inv);
    inv.succeed(Invocation.EMPTY);
  }

  /** Takes everything queued so far, oldest first; empty when nothing is. */
  List<Invocation> drain() {
    List<Invocation> out = new ArrayList<>();
    Invocation inv;
    while ((inv = queued.poll()) != null) {
      out.add(inv);
    }
    return out;
  }
}
