package dev.tether.bench;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * The raw-Netty server: decodes each request frame into a {@code byte[]} (what a service would be
 * handed) and echoes it in a frame with the same request id; the responses of one read batch are
 * encoded together and flushed once when the batch completes.
 */
final class RawEchoServerHandler extends ByteToMessageDecoder {

  /** Non-null once the handler is in the pipeline. */
  private FrameBatch responses;

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
    responses = new FrameBatch(ctx);
    super.handlerAdded(ctx);
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    while (RawFrames.hasCompleteFrame(in)) {
      int payloadLength = RawFrames.readPayloadLength(in);
      int requestId = in.readInt();
      byte[] request = new byte[payloadLength];
      in.readBytes(request);
      responses.add(requestId, echo(request));
    }
  }

  /** The service: returns its argument. */
  private static byte[] echo(byte[] request) {
    return request;
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
    responses.flush();
    super.channelReadComplete(ctx);
  }

  @Override
  protected void handlerRemoved0(ChannelHandlerContext ctx) {
    responses.discard();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close();
  }
}
