package dev.tether.bench;

import dev.tether.internal.IntMap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.nio.channels.ClosedChannelException;
import java.util.List;

/**
 * The raw-Netty client end of the one connection. All state is confined to the channel's event
 * loop: calls from other threads hop onto it, calls made from a response callback (the closed
 * loop's steady state) are written in place.
 *
 * <p>Writes are coalesced into a {@link FrameBatch}: during a read batch it is flushed once when
 * the batch completes; outside one, by a single flush task queued behind whatever else the loop has
 * to do.
 */
final class RawClientHandler extends ByteToMessageDecoder {

  private final IntMap<ResponseHandler> pendingCalls = new IntMap<>();
  private final Runnable flushTask = this::flushQueuedWrites;

  /** Non-null once the handler is in the pipeline. */
  private ChannelHandlerContext ctx;

  /** Non-null once the handler is in the pipeline. */
  private FrameBatch requests;

  private int nextRequestId;

  /** True while a read batch is being decoded: its completion will flush. */
  private boolean reading;

  /** True while {@link #flushTask} is queued on the event loop. */
  private boolean flushTaskQueued;

  /** Non-null once the connection is closed; later calls fail with it. */
  private Throwable closedCause;

  /** Sends one request from any thread; see {@link BenchSystem#call}. */
  void call(byte[] payload, ResponseHandler handler) {
    if (ctx.executor().inEventLoop()) {
      send(payload, handler);
    } else {
      ctx.executor().execute(() -> send(payload, handler));
    }
  }

  private void send(byte[] payload, ResponseHandler handler) {
    if (closedCause != null) {
      handler.onFailure(closedCause);
      return;
    }
    int requestId = nextRequestId++;
    pendingCalls.put(requestId, handler);
    requests.add(requestId, payload);
    if (!reading && !flushTaskQueued) {
      flushTaskQueued = true;
      ctx.executor().execute(flushTask);
    }
  }

  private void flushQueuedWrites() {
    flushTaskQueued = false;
    requests.flush();
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
    this.ctx = ctx;
    this.requests = new FrameBatch(ctx);
    super.handlerAdded(ctx);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    reading = true;
    super.channelRead(ctx, msg);
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    while (RawFrames.hasCompleteFrame(in)) {
      int payloadLength = RawFrames.readPayloadLength(in);
      int requestId = in.readInt();
      byte[] response = new byte[payloadLength];
      in.readBytes(response);
      handleResponse(requestId, response);
    }
  }

  private void handleResponse(int requestId, byte[] response) {
    ResponseHandler handler = pendingCalls.remove(requestId);
    if (handler == null) {
      throw new IllegalStateException("response to unknown request " + requestId);
    }
    handler.onResponse(response);
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
    reading = false;
    requests.flush();
    super.channelReadComplete(ctx);
  }

  @Override
  protected void handlerRemoved0(ChannelHandlerContext ctx) {
    requests.discard();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    failPendingCalls(new ClosedChannelException());
    super.channelInactive(ctx);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    failPendingCalls(cause);
    ctx.close();
  }

  /** Decides first (closed, map emptied), then notifies, so callbacks see a consistent handler. */
  private void failPendingCalls(Throwable cause) {
    if (closedCause == null) {
      closedCause = cause;
    }
    List<ResponseHandler> failed = pendingCalls.removeAll();
    failed.forEach(handler -> handler.onFailure(cause));
  }
}
