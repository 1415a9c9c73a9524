package dev.tether.server;

import dev.tether.protocol.BodyCompression;
import dev.tether.protocol.FrameWriter;
import dev.tether.protocol.Response;
import dev.tether.protocol.WriteBatcher;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;

/**
 * The response writer of one server connection: answers from any thread, encoded and flushed in
 * batches on the connection's loop. An answer whose request the client cancelled meanwhile is
 * dropped, not written; either way the request is counted finished when its answer leaves here.
 */
final class ResponseWriter extends WriteBatcher<Response> {
  private final InboundCalls calls;

  /** The zstd state replies are compressed with; owned by the connection. */
  private final BodyCompression compression;

  ResponseWriter(Channel channel, InboundCalls calls, BodyCompression compression) {
    super(channel);
    this.calls = calls;
    this.compression = compression;
  }

  /**
   * Ice's rule: a reply is compressed when its request came compressed and the body is worth it.
   */
  @Override
  protected void encode(Response response, ByteBuf out) {
    if (!calls.takeForAnswer(response.requestId())) {
      calls.requestFinished(); // cancelled: the client no longer waits for it
      return;
    }
    byte[] body = response.body();
    int flags = 0;
    if ((response.flags() & Response.COMPRESSED) != 0) {
      byte[] packed = compression.compressIfWorthIt(body);
      if (packed != null) {
        body = packed;
        flags = Response.COMPRESSED;
      }
    }
    FrameWriter.encodeResponse(
        response.requestId(), flags, response.status(), response.metadata(), body, out);
    calls.requestFinished();
  }

  @Override
  protected void discard(Response response) {
    // The client is gone; it will learn from the closed connection.
  }
}
