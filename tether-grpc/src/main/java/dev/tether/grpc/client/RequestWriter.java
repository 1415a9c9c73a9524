package dev.tether.grpc.client;

import dev.tether.TetherException;
import dev.tether.spi.ClientWireProtocol;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.SingleThreadEventLoop;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Stream;
import java.util.Map;

/**
 * What {@link GrpcClientLink} writes: a call's stream (its HEADERS, then its one message with
 * END_STREAM, or for a stream the caller sends on the HEADERS alone and its messages as they come),
 * and the receive window a stream's caller gives back. Every call written in one turn of the event
 * loop leaves with one flush. The connection's event loop only.
 */
final class RequestWriter {
  private final GrpcClientLink link;
  private final CallTable calls;

  /** The requests' {@code :scheme} is "https"; set when the link is added. */
  private boolean tls;

  /** The server's {@code :authority}, the same for every call; made at the first. */
  private Map.Entry<CharSequence, CharSequence> authority;

  /** True while a flush waits for the end of this event-loop turn. */
  private boolean flushQueued;

  private final Runnable flushQueuedWrites = this::flushQueuedWrites;

  RequestWriter(GrpcClientLink link, CallTable calls) {
    this.link = link;
    this.calls = calls;
  }

  void useTls(boolean tls) {
    this.tls = tls;
  }

  /**
   * One flush for every call the loop writes in this turn: at many calls in flight each call's
   * write is its own loop task, and a flush each cost a syscall here and a read at the server per
   * call.
   */
  void flushAfterThisTurn() {
    if (flushQueued) {
      return;
    }
    flushQueued = true;
    ChannelHandlerContext ctx = link.ctx();
    if (ctx.channel().eventLoop() instanceof SingleThreadEventLoop loop) {
      loop.executeAfterEventLoopIteration(flushQueuedWrites);
    } else {
      ctx.executor().execute(flushQueuedWrites);
    }
  }

  private void flushQueuedWrites() {
    flushQueued = false;
    link.flush(link.ctx());
  }

  /** Opens {@code call}'s stream; the caller flushes. */
  void open(ClientWireProtocol.Call call) {
    ChannelHandlerContext ctx = link.ctx();
    Envelopes.Request request = Envelopes.readRequest(call.body());
    int id = link.connection().local().incrementAndGetNextStreamId();
    Exchange exchange = new Exchange(call, ctx.alloc());
    boolean gzip = RequestEncoding.isGzip(request.metadata());
    exchange.requestGzip = gzip;
    if (request.streamToken() != 0) {
      exchange.sink = StreamEnds.reporting(StreamTokens.find(request.streamToken()), call);
    }
    calls.put(id, exchange);
    ChannelPromise headersWritten = ctx.newPromise();
    long deadline =
        exchange.sink == null ? call.remainingMillis() : exchange.sink.remainingMillis();
    encoder()
        .writeHeaders(
            ctx,
            id,
            RequestHeaders.of(call, request, gzip, deadline, authority(), tls),
            0,
            false,
            headersWritten);
    if (headersWritten.isDone() && !headersWritten.isSuccess()) {
      notWritten(id, headersWritten.cause());
      return;
    }
    if (request.openEnded() && exchange.sink != null) {
      headersWritten.addListener(
          f -> {
            if (f.isSuccess()) {
              link.reader().acceptWritten(id, exchange);
            } else {
              notWritten(id, f.cause());
            }
          });
      return;
    }
    byte[] message = request.message();
    ByteBuf data = ctx.alloc().buffer(5 + message.length);
    data.writeByte(gzip ? 1 : 0).writeInt(message.length).writeBytes(message);
    ChannelPromise written = ctx.newPromise();
    written.addListener(
        f -> {
          if (f.isSuccess()) {
            call.onWritten();
          } else {
            notWritten(id, f.cause());
          }
        });
    encoder().writeData(ctx, id, data, 0, true, written);
  }

  private Map.Entry<CharSequence, CharSequence> authority() {
    if (authority == null) {
      authority = RequestHeaders.authority(link.owner().authority());
    }
    return authority;
  }

  /** The request did not leave whole: the server cannot have run it. */
  private void notWritten(int id, Throwable cause) {
    Exchange e = calls.end(id);
    if (e != null) {
      e.call.onLost(new TetherException("the request was not written: " + cause, cause));
    }
  }

  /** One message (or, null, none) on an open stream; dropped when the stream ended. */
  void writeData(int id, byte[] message, boolean last) {
    Exchange e = calls.get(id);
    if (e == null) {
      return;
    }
    ChannelHandlerContext ctx = link.ctx();
    ByteBuf data;
    ChannelPromise written = ctx.newPromise();
    if (message == null) {
      data = ctx.alloc().buffer(0);
    } else {
      int wireBytes = 5 + message.length;
      data = ctx.alloc().buffer(wireBytes);
      data.writeByte(e.requestGzip ? 1 : 0).writeInt(message.length).writeBytes(message);
      // Done once the flow controller let it out and the socket took it: the caller may send more.
      written.addListener(f -> e.sink.onSent(wireBytes));
    }
    encoder().writeData(ctx, id, data, 0, last, written);
    link.flush(ctx);
  }

  /** The caller of stream {@code id} read {@code wireBytes}: the server may send that much more. */
  void giveBack(int id, int wireBytes) {
    Http2Stream stream = link.connection().stream(id);
    if (stream == null) {
      return; // ended meanwhile: its window went with it
    }
    try {
      if (link.decoder().flowController().consumeBytes(stream, wireBytes)) {
        link.flush(link.ctx());
      }
    } catch (Http2Exception e) {
      link.owner().onFailed(e);
    }
  }

  private Http2ConnectionEncoder encoder() {
    return link.encoder();
  }
}
