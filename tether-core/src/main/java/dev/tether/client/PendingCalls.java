package dev.tether.client;

import dev.tether.internal.IntMap;
import java.util.List;

/**
 * The twoway calls one connection wrote and the server has not answered yet, by request id, and the
 * ids it hands out. Confined to the connection's event loop; {@link #size()} is also read racily by
 * other threads to place calls.
 *
 * <p>Streams, when they come, live beside this table in one of their own, keyed by the same ids:
 * whatever fails or drains the pending calls here (a lost connection, GOAWAY, a drain) fails or
 * drains the open streams there in the same step.
 */
final class PendingCalls {
  private final IntMap<CallAttempt> byId = new IntMap<>();
  private int nextRequestId;

  PendingCalls() {
    this(1);
  }

  /** A table whose first request id is {@code firstRequestId}; tests start near the wrap. */
  PendingCalls(int firstRequestId) {
    this.nextRequestId = firstRequestId;
  }

  /** A fresh request id: never 0, which the protocol keeps for the connection itself. */
  int nextRequestId() {
    int id = nextRequestId++;
    if (nextRequestId == 0) {
      nextRequestId = 1;
    }
    return id;
  }

  void add(CallAttempt call) {
    byId.put(call.requestId, call);
  }

  /** The call the answer with this id belongs to, now out of the table; null when none waits. */
  CallAttempt take(int requestId) {
    return byId.remove(requestId);
  }

  /**
   * Takes {@code call} out when it still waits here under its id; false when it was answered
   * meanwhile, never written, or its id now belongs to a later call.
   */
  boolean forget(CallAttempt call) {
    if (byId.get(call.requestId) != call) {
      return false;
    }
    byId.remove(call.requestId);
    return true;
  }

  /**
   * Takes out every call above the server's last accepted id (GOAWAY): the server never ran them.
   */
  List<CallAttempt> takeNotAccepted(int lastAcceptedId) {
    return byId.removeKeys(id -> Integer.compareUnsigned(id, lastAcceptedId) > 0);
  }

  /** Empties the table, returning every call that was waiting. */
  List<CallAttempt> takeAll() {
    return byId.removeAll();
  }

  int size() {
    return byId.size();
  }

  boolean isEmpty() {
    return byId.isEmpty();
  }
}
