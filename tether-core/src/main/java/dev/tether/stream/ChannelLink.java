package dev.tether.stream;

import dev.tether.protocol.Frame;
import io.netty.channel.Channel;

/**
 * A stream's link over one Netty channel. Writes from the stream's context reach the channel's
 * loop in the order they were made, after anything the loop itself wrote before them; a failed
 * write needs no answer here, since the connection's close tells the stream.
 */
public final class ChannelLink implements StreamLink {
  private final Channel channel;
  private final int streamId;
  private boolean unflushed;

  public ChannelLink(Channel channel, int streamId) {
    this.channel = channel;
    this.streamId = streamId;
  }

  @Override
  public int streamId() {
    return streamId;
  }

  @Override
  public void write(Frame frame) {
    channel.write(frame, channel.voidPromise());
    unflushed = true;
  }

  @Override
  public void flush() {
    if (unflushed) {
      unflushed = false;
      channel.flush();
    }
  }

  @Override
  public String toString() {
    return "stream " + Integer.toUnsignedString(streamId) + " on " + channel;
  }
}
