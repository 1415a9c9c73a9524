package dev.tether.protocol;

/** The answer to a PING, with the PING's data. */
public record Pong(long data) implements Frame {
  @Override
  public FrameType type() {
    return FrameType.PONG;
  }
}
