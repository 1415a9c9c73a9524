package dev.tether.chaos;

/**
 * The calls the chaos load makes, as the ledger counts them: how each is made (blocking, async,
 * oneway, in a session, through the announced primary) and whether it may run twice.
 */
public enum CallKind {
  /** {@code invoke} on the round-robin proxy, declared idempotent, with an attempt timeout. */
  BLOCKING_IDEMPOTENT("blocking idempotent", true, true, true),
  /** {@code invoke} on the round-robin proxy, not idempotent: at most once. */
  BLOCKING_NON_IDEMPOTENT("blocking non-idempotent", false, true, true),
  /** {@code invokeAsync} on the round-robin proxy, idempotent. */
  ASYNC_IDEMPOTENT("async idempotent", true, true, true),
  /** {@code invokeAsync} on the round-robin proxy, not idempotent. */
  ASYNC_NON_IDEMPOTENT("async non-idempotent", false, true, true),
  /** A oneway request (not idempotent): no answer, so it may be lost, but it never runs twice. */
  ONEWAY("oneway", false, false, true),
  /** A call in a session pinned to one connection, not idempotent. */
  SESSION("session", false, true, false),
  /** An idempotent call through the pinned proxy that follows the servers' announced primary. */
  PRIMARY_IDEMPOTENT("primary idempotent", true, true, false),
  /** A non-idempotent call through the pinned proxy that follows the announced primary. */
  PRIMARY_NON_IDEMPOTENT("primary non-idempotent", false, true, false);

  /** As the ledger prints it. */
  public final String label;

  /** Whether running it twice is harmless, so the runtime may retry it after it was sent. */
  public final boolean idempotent;

  /** Whether the caller waits for an answer (every kind but {@link #ONEWAY}). */
  public final boolean twoway;

  /**
   * Whether it goes through the round-robin proxy, whose group ejects a sick node and sends a
   * misdeployed node's calls to its peers; the others are pinned to the primary or a session.
   */
  public final boolean balanced;

  CallKind(String label, boolean idempotent, boolean twoway, boolean balanced) {
    this.label = label;
    this.idempotent = idempotent;
    this.twoway = twoway;
    this.balanced = balanced;
  }
}
