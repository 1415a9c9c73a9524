package dev.tether.protocol;

/**
 * The receiver's word on one stream direction (protocol 1.3): it holds every item up to {@code
 * received} (the sender may forget them), and the sender may send items up to position {@code
 * limit}. Both only grow; a smaller figure than one already sent means nothing new.
 */
public record StreamCredit(int streamId, long received, long limit) implements Frame {
  @Override
  public FrameType type() {
    return FrameType.STREAM_CREDIT;
  }

  @Override
  public int requestId() {
    return streamId;
  }
}
