package dev.tether.protocol;

/**
 * The client's opening frame.
 *
 * @param clientId a free-form name of the client runtime, for the server's logs
 * @param maxFrameSize the largest frame the client accepts, in bytes
 */
public record Hello(String clientId, int maxFrameSize) implements Frame {
  @Override
  public FrameType type() {
    return FrameType.HELLO;
  }
}
