package dev.tether.server;

import dev.tether.ServerCallObserver;

/**
 * What sees each request that reaches a service, calls and stream openings alike: the interceptors,
 * which may refuse it first, and the call observer (null for none), which watches it from its start
 * to its answer.
 */
public record Oversight(Interceptors interceptors, ServerCallObserver observer) {
  public static final Oversight NONE = new Oversight(Interceptors.NONE, null);

  /** Nothing to run or tell before a service starts: the request may go straight on. */
  boolean isEmpty() {
    return interceptors.isEmpty() && observer == null;
  }
}
