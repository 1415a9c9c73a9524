package dev.tether.protocol;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.List;

/**
 * Collects the frames the decoder passes down the pipeline, in order with the sink's; passes
 * nothing on.
 */
final class FrameRecorder extends ChannelInboundHandlerAdapter {
  private final List<Frame> frames;

  FrameRecorder(List<Frame> frames) {
    this.frames = frames;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    frames.add((Frame) msg);
  }
}
