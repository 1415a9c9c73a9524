package dev.tether.protocol;

/**
 * The sender is closing the connection: it accepted (and will finish) requests up to
 * {@code lastAcceptedId} and executes none above it.
 */
public record GoAway(GoAwayReason reason, int lastAcceptedId, String message) implements Frame {
  @Override
  public FrameType type() {
    return FrameType.GOAWAY;
  }
}
