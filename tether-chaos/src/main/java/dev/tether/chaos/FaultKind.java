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
  PRIMARY_HANDOVER("primary handover", false),
  /**
   * The node's service throws on every call, at once and without doing the work ("database down"),
   * until the fault heals; its connections stay up, so only outlier ejection takes it out.
   */
  SICK_NODE("sick node", false),
  /**
   * The node drains and restarts with a build that lacks the call service (it answers
   * SERVICE_NOT_FOUND, its stream service stays), then drains and restarts whole after the hold.
   */
  MISDEPLOYED_RESTART("misdeployed restart", true),
  /**
   * The elected leader's link to ZooKeeper freezes while its clients still reach it; the others
   * elect and announce a new leader; the link flows again after the hold. Only in a cluster that
   * elects its primary in ZooKeeper (see {@link #needsZooKeeper()}); the node is whichever leads.
   */
  LEADER_CUT_OFF("leader cut off from ZooKeeper", false),
  /**
   * Beside the well-behaved streams, a raw client breaks the stream rules against the node: items
   * past its credit, an opening on an id in use, then a huge credit it never reads, for the hold.
   */
  HOSTILE_STREAM_CLIENT("hostile stream client", false);

  /** As the report prints it. */
  public final String label;

  /**
   * Whether the node cannot answer while the fault lasts; a sick node answers (with errors), its
   * group ejects it, and at most half a group is ejected at once.
   */
  public final boolean takesNodeDown;

  FaultKind(String label, boolean takesNodeDown) {
    this.label = label;
    this.takesNodeDown = takesNodeDown;
  }

  /** Faults after which the servers announce the next node as primary. */
  public boolean movesThePrimary() {
    return this == PRIMARY_FAILOVER || this == PRIMARY_HANDOVER;
  }

  /**
   * Faults the plan never begins on the announced primary: the pinned proxies would meet them on
   * every call, where the promise under test is about the round-robin proxies' groups.
   */
  public boolean sparesThePrimary() {
    return this == SICK_NODE || this == MISDEPLOYED_RESTART;
  }

  /**
   * Faults that need a cluster electing its primary in ZooKeeper: a run whose plan holds one starts
   * its cluster so, and a drawn plan, whose cluster announces its primary itself, holds none.
   */
  public boolean needsZooKeeper() {
    return this == LEADER_CUT_OFF;
  }

  /** Faults that need the whole cluster healthy and keep every other fault out while they last. */
  public boolean isExclusive() {
    return this == ROLLING_RESTART || this == PRIMARY_FAILOVER;
  }
}
