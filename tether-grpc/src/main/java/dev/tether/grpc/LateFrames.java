package dev.tether.grpc;

import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;

/**
 * Frames that were on their way when this side ended a stream (its trailers and RST_STREAM, a
 * cancel): HTTP/2 says the sender of RST_STREAM must be ready to receive them. Netty's decoder
 * takes their flow-control bytes and then reports STREAM_CLOSED for a stream it no longer knows;
 * answering each with another RST_STREAM would be a reset per frame still in flight (a rejected 4
 * MiB message is hundreds), which a server's limit on the resets it sends counts as an attack and
 * ends the whole connection for. Both sides drop them quietly instead.
 */
public final class LateFrames {
  private LateFrames() {}

  /**
   * True when {@code error} is only a frame for a stream that existed and is gone: it is dropped,
   * and nothing is sent back.
   */
  public static boolean isForAGoneStream(
      Http2Connection connection, Http2Exception.StreamException error) {
    int id = error.streamId();
    return error.error() == Http2Error.STREAM_CLOSED
        && connection.stream(id) == null
        && connection.streamMayHaveExisted(id);
  }
}
