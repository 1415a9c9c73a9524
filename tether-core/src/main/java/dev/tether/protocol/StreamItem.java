package dev.tether.protocol;

/**
 * One item of a stream (protocol 1.3), from either side: {@code position} counts the items of its
 * direction from 1, so a receiver that already has it after a resume drops it.
 *
 * @param streamId the request id that opened the stream on this connection
 */
public record StreamItem(int streamId, long position, byte[] body) implements Frame {
  @Override
  public FrameType type() {
    return FrameType.STREAM_ITEM;
  }

  @Override
  public int requestId() {
    return streamId;
  }
}
