package dev.tether.protocol;

/**
 * The sender is closing the connection: it accepted (and will finish) requests up to {@code
 * lastAcceptedId} and executes none above it.
 *
 * @param reasonCode the code on the wire: {@code reason}'s, or a later version's code, which this
 *     side reads as SHUTDOWN and keeps, so that the frame encodes back to the bytes it came from
 */
public record GoAway(GoAwayReason reason, int lastAcceptedId, String message, int reasonCode)
    implements Frame {
  public GoAway(GoAwayReason reason, int lastAcceptedId, String message) {
    this(reason, lastAcceptedId, message, reason.code());
  }

  /**
   * The largest unsigned id as {@code lastAcceptedId}: the sender still accepts whatever is sent,
   * until a later GOAWAY names the real last id (MAX_AGE's notice, section 3.4 of the protocol).
   */
  public static final int UNTIL_FURTHER_NOTICE = -1;

  /** True for the notice that names no last id: the sender goes on accepting requests. */
  public boolean acceptsFurtherRequests() {
    return lastAcceptedId == UNTIL_FURTHER_NOTICE;
  }

  @Override
  public FrameType type() {
    return FrameType.GOAWAY;
  }
}
