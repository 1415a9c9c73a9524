package dev.tether.protocol;

/** The client no longer waits for the answer to {@code requestId}. */
public record Cancel(int requestId) implements Frame {
  @Override
  public FrameType type() {
    return FrameType.CANCEL;
  }
}
