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
  SERIALIZED
}
