package dev.tether.grpc.client;

import dev.tether.grpc.InboundBudget;
import dev.tether.grpc.MessageDeframer;
import dev.tether.spi.ClientWireProtocol;
import io.grpc.StatusException;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http2.Http2Headers;
import java.util.ArrayList;
import java.util.List;

/**
 * One call on its HTTP/2 stream, as {@link GrpcClientLink} reads its answer: the headers, the
 * messages and the trailers as they arrive, and for a stream the sink its messages go to once it is
 * accepted. The connection's event loop only.
 */
final class Exchange {
  final ClientWireProtocol.Call call;
  final MessageDeframer deframer;
  final List<byte[]> messages = new ArrayList<>(1);
  Http2Headers headers;
  Http2Headers trailers;

  /** Non-null for a stream: where its messages go once accepted. */
  StreamSink sink;

  /** True once a stream was accepted: the runtime's call is answered. */
  boolean accepted;

  /** True once an accepted stream's response headers came; the next HEADERS are trailers. */
  boolean headersSeen;

  /**
   * An accepted stream's bytes received and not yet handed to its sink: the start of the message in
   * progress.
   */
  int held;

  /** Of {@link #held}, the bytes whose window was given back before their message was whole. */
  int prepaid;

  /** Bytes of the answer counted against the connection's {@link InboundBudget}. */
  long charged;

  /** Messages handed to the sink whose window its caller has not given back yet. */
  int unconsumed;

  /** The request's messages go gzip-compressed (flagged so). */
  boolean requestGzip;

  /** How the answer's messages are encoded; null until its first message is read. */
  private ResponseEncoding encoding;

  Exchange(ClientWireProtocol.Call call, ByteBufAllocator alloc) {
    this.call = call;
    // Flagged messages pass the deframer: the answer's encoding judges them.
    this.deframer = new MessageDeframer(alloc, GrpcClientLink.MAX_MESSAGE, true);
  }

  /**
   * A message of the answer as the service wrote it, by the encoding its response headers name.
   *
   * @throws StatusException INTERNAL for an unknown encoding or a bad compressed message
   */
  byte[] messageOf(MessageDeframer.Message m) throws StatusException {
    if (encoding == null) {
      encoding = ResponseEncoding.of(headers);
    }
    return encoding.decode(m, GrpcClientLink.MAX_MESSAGE);
  }
}
