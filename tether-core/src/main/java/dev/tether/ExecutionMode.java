package dev.tether;

/** Where a server runs service code. */
public enum ExecutionMode {
  /** On the server's executor (the default): service code may block. */
  EXECUTOR,
  /** On the connection's event loop: fastest, but service code must never block. */
  DIRECT,
  /**
   * On the server's executor, one request of a connection at a time, in arrival order (Ice's
   * serialized thread pool); other connections are not held up. A service that returns a
   * CompletionStage frees its connection's turn when it returns, not when the stage completes.
   */
  SERIALIZED,
  /**
   * Each call on a virtual thread of its own, started at once (Java 21 or later; on an older Java
   * {@code build()} fails): for services that block, as many at a time as calls are in flight. Each
   * connection's in-flight limit ({@code maxConcurrentRequests}) bounds its calls, and the server
   * runs at most that many calls at once over all connections; one beyond is refused.
   */
  VIRTUAL_THREADS
}
