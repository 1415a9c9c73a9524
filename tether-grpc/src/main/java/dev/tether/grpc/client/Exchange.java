package dev.tether.grpc.client;

import dev.tether.grpc.MessageDeframer;
import dev.tether.spi.ClientWireProtocol;
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

  Exchange(ClientWireProtocol.Call call, ByteBufAllocator alloc) {
    this.call = call;
    this.deframer = new MessageDeframer(alloc, GrpcClientLink.MAX_MESSAGE, false);
  }
}
