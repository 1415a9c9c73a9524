package dev.tether.chaos;

/** The faults the chaos scheduler injects, each on one node unless it says otherwise. */
public enum FaultKind {
  /** The node crashes: connections reset, connects refused, restarted after the hold. */
  KILL("abrupt kill", true),
  /** The node's network goes silent both ways, no socket closes; it flows again after the hold. */
  FREEZE("freeze", true),
  /** Every connection to the node gets an RST; the node stays up. */
  RESET("connection reset", false),
  /** Every chunk to and from the node is delayed, for the hold. */
  LATENCY("latency spike", false),
  /** The node shuts down gracefully (GOAWAY, drain), then restarts after the hold. */
  DRAIN("graceful drain", true),
  /** Every node in turn drains and restarts; nothing else happens meanwhile. */
  ROLLING_RESTART("rolling restart", true),
  /**
   * The announced primary crashes, the servers announce the next node; it restarts after the hold.
   */
  PRIMARY_FAILOVER("primary failover", true),
  /**
   * The announced primary hands over while it stays up: the servers announce the next node as
   * primary (a leadership change), and clients move their new calls to it.
   */
  PRIMARY_HANDOVER("primary handover", false);

  /** As the report prints it. */
  public final String label;

  /** Whether the node cannot answer while the fault lasts. */
  public final boolean takesNodeDown;

  FaultKind(String label, boolean takesNodeDown) {
    this.label = label;
    this.takesNodeDown = takesNodeDown;
  }

  /** Faults after which the servers announce the next node as primary. */
  public boolean movesThePrimary() {
    return this == PRIMARY_FAILOVER || this == PRIMARY_HANDOVER;
  }

  /** Faults that need the whole cluster healthy and keep every other fault out while they last. */
  public boolean isExclusive() {
    return this == ROLLING_RESTART || this == PRIMARY_FAILOVER;
  }
}
