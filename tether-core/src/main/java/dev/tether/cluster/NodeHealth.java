package dev.tether.cluster;

import dev.tether.observe.TetherEvent;

/**
 * A node's health as its group sees it, the one enum for both what its connection does and what the
 * outlier detector decided; status shows its name. Which moves are allowed, and the event each move
 * emits, are written here once; {@link Node#moveTo} applies them.
 */
enum NodeHealth {
  /** Never connected yet: eligible, the first call will tell. */
  UNKNOWN(null),
  /** Connected and answering. */
  ALIVE(TetherEvent.Kind.NODE_ALIVE),
  /** Its connection failed or broke: skipped until its supervisor has it up again. */
  DEAD(TetherEvent.Kind.NODE_DEAD),
  /**
   * Connected, but its calls kept failing: skipped until its ejection time ends, whatever its
   * connection does meanwhile; only the outlier detector moves a node out of it.
   */
  EJECTED(TetherEvent.Kind.NODE_EJECTED),
  /** Back in rotation after an ejection, on probation: its next call decides. */
  PROBING(TetherEvent.Kind.NODE_READMITTED),
  /** Runs a server version outside the group's range: skipped for good (terminal). */
  INCOMPATIBLE(TetherEvent.Kind.NODE_INCOMPATIBLE);

  /** What entering this health emits; null for UNKNOWN, which is never entered. */
  final TetherEvent.Kind entered;

  NodeHealth(TetherEvent.Kind entered) {
    this.entered = entered;
  }

  /**
   * Whether a node in this health may move to {@code next}: a dead node cannot be ejected (its
   * supervisor took it out already), an ejected node comes back only on probation, only a probe
   * readmits it for good, and nothing leaves INCOMPATIBLE.
   */
  boolean canBecome(NodeHealth next) {
    return switch (this) {
      case UNKNOWN -> next == ALIVE || next == DEAD || next == EJECTED || next == INCOMPATIBLE;
      case ALIVE -> next == DEAD || next == EJECTED || next == INCOMPATIBLE;
      // Connected again: alive, or on probation when its ejection ended while it was down.
      case DEAD -> next == ALIVE || next == PROBING || next == INCOMPATIBLE;
      // The ejection ends: on probation, or dead when its supervisor is backing off.
      case EJECTED -> next == PROBING || next == DEAD;
      case PROBING -> next == ALIVE || next == EJECTED || next == DEAD || next == INCOMPATIBLE;
      case INCOMPATIBLE -> false;
    };
  }

  /** Whether calls may be routed to a node in this health. */
  boolean isSelectable() {
    return this == UNKNOWN || this == ALIVE || this == PROBING;
  }
}
