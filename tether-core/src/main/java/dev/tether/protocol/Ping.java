package dev.tether.protocol;

/** A liveness probe; the peer echoes {@code data} in a PONG. */
public record Ping(long data) implements Frame {
  @Override
  public FrameType type() {
    return FrameType.PING;
  }
}
