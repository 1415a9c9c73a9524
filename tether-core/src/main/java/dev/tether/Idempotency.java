package dev.tether;

/** Whether an untyped call may run twice without harm; decides retries after a send. */
public enum Idempotency {
  /** Running it twice may do harm: never retried once sent (the default). */
  NOT_IDEMPOTENT,
  /** Running it twice is harmless. */
  IDEMPOTENT
}
