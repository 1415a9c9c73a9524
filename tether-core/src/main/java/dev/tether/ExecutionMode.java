package dev.tether;

/** Where a server runs service code. */
public enum ExecutionMode {
  /** On the server's executor (the default): service code may block. */
  EXECUTOR,
  /** On the connection's event loop: fastest, but service code must never block. */
  DIRECT
}
