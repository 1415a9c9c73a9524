package dev.tether.grpc.client;

import dev.tether.TetherException;
import dev.tether.grpc.GrpcHeaders;
import dev.tether.grpc.MessageDeframer;
import dev.tether.spi.ClientWireProtocol;
import dev.tether.spi.Scheduler;
import io.grpc.Status;
import io.grpc.StatusException;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.SingleThreadEventLoop;
import io.netty.handler.codec.http2.AbstractHttp2ConnectionHandlerBuilder;
import io.netty.handler.codec.http2.DefaultHttp2Connection;
import io.netty.handler.codec.http2.DefaultHttp2RemoteFlowController;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2EventAdapter;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.handler.codec.http2.UniformStreamByteDistributor;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.AsciiString;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * One HTTP/2 connection to a gRPC server, as a {@link ClientWireProtocol.Link}: each call the
 * runtime sends becomes a stream (HEADERS, one DATA with END_STREAM), whose answer (headers,
 * messages, trailers) goes back whole. What the server proves decides each call's ending: a stream
 * it refused (RST_STREAM REFUSED_STREAM) or never took (above its GOAWAY's last stream id) is
 * refused; one reset otherwise, after the request left, is lost. Calls beyond the server's
 * SETTINGS_MAX_CONCURRENT_STREAMS wait here, unwritten, for a stream to end. Everything on the
 * channel's event loop.
 */
final class GrpcClientLink extends Http2ConnectionHandler implements ClientWireProtocol.Link {
  /** Each stream's receive window, and the connection's (grpc-java's default). */
  static final int WINDOW = 1024 * 1024;

  /** The largest answer message taken (gRPC's default receive limit). */
  static final int MAX_MESSAGE = 4 * 1024 * 1024;

  private final ClientWireProtocol.Connection owner;

  /** The calls on open streams, by stream id. */
  private final IntObjectMap<Exchange> streams = new IntObjectHashMap<>();

  /** Calls waiting for a stream the server's limit allows; never written. */
  private final ArrayDeque<ClientWireProtocol.Call> waiting = new ArrayDeque<>();

  private ChannelHandlerContext ctx;

  private final KeepalivePolicy keepalivePolicy;
  private final Keepalive keepalive;

  /** The requests' {@code :scheme}: "https" under TLS; set when the link is added. */
  private AsciiString scheme = RequestHeaders.HTTP;

  /** True once the server's first SETTINGS arrived. */
  private boolean ready;

  /** The server's {@code :authority}, the same for every call; made at the first. */
  private AsciiString authority;

  /** True while a flush waits for the end of this event-loop turn; the loop's. */
  private boolean flushQueued;

  private final Runnable flushQueuedWrites =
      () -> {
        flushQueued = false;
        flush(ctx);
      };

  private GrpcClientLink(
      Http2ConnectionDecoder decoder,
      Http2ConnectionEncoder encoder,
      Http2Settings settings,
      ClientWireProtocol.Connection owner,
      KeepalivePolicy keepalivePolicy) {
    super(decoder, encoder, settings);
    this.owner = owner;
    this.keepalivePolicy = keepalivePolicy;
    this.keepalive =
        new Keepalive(keepalivePolicy, new Liveness(), owner.ticker(), owner::schedule);
    connection().addListener(new StreamEvents());
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
    this.ctx = ctx;
    scheme =
        ctx.pipeline().get(SslHandler.class) == null ? RequestHeaders.HTTP : RequestHeaders.HTTPS;
    super.handlerAdded(ctx);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    keepalive.onRead();
    super.channelRead(ctx, msg);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    keepalive.stop();
    super.channelInactive(ctx);
  }

  /** What the keepalive asks of this connection. */
  private final class Liveness implements Keepalive.Owner {
    @Override
    public boolean hasCalls() {
      return !streams.isEmpty();
    }

    @Override
    public void sendPing(long data) {
      encoder().writePing(ctx, false, data, ctx.newPromise());
      flush(ctx);
    }

    @Override
    public void onPeerSilent(String why) {
      owner.onFailed(new TetherException(why + ": the server is gone or frozen"));
    }
  }

  /**
   * The connection's own window starts at HTTP/2's 64 KiB: widen it to a stream's once the preface
   * went out (a WINDOW_UPDATE before it would corrupt the preface).
   */
  private void widenConnectionWindow() {
    Http2Stream whole = connection().connectionStream();
    try {
      decoder()
          .flowController()
          .incrementWindowSize(whole, WINDOW - decoder().flowController().windowSize(whole));
    } catch (Http2Exception cannotHappen) {
      owner.onFailed(cannotHappen);
    }
  }

  // ---- what the runtime asks ----

  @Override
  public void send(ClientWireProtocol.Call call) {
    if (connection().goAwayReceived()) {
      call.onRefused("the server is going away (GOAWAY received) and never took the call");
      return;
    }
    if (!connection().local().canOpenStream()) {
      waiting.add(call);
      return;
    }
    open(call);
    flushAfterThisTurn();
  }

  /**
   * One flush for every call the loop writes in this turn: at many calls in flight each call's
   * write is its own loop task, and a flush each cost a syscall here and a read at the server per
   * call.
   */
  private void flushAfterThisTurn() {
    if (flushQueued) {
      return;
    }
    flushQueued = true;
    if (ctx.channel().eventLoop() instanceof SingleThreadEventLoop loop) {
      loop.executeAfterEventLoopIteration(flushQueuedWrites);
    } else {
      ctx.executor().execute(flushQueuedWrites);
    }
  }

  @Override
  public void cancel(ClientWireProtocol.Call call) {
    if (waiting.remove(call)) {
      return;
    }
    int id = streamOf(call);
    if (id != 0) {
      streams.remove(id).deframer.release();
      resetStream(ctx, id, Http2Error.CANCEL.code(), ctx.newPromise());
      flush(ctx);
    }
  }

  @Override
  public int activeCalls() {
    return streams.size() + waiting.size();
  }

  /** Below the server's SETTINGS_MAX_CONCURRENT_STREAMS, and not going away. */
  @Override
  public boolean hasRoom() {
    return waiting.isEmpty()
        && connection().local().canOpenStream()
        && !connection().goAwayReceived();
  }

  private int streamOf(ClientWireProtocol.Call call) {
    for (IntObjectMap.PrimitiveEntry<Exchange> e : streams.entries()) {
      if (e.value().call == call) {
        return e.key();
      }
    }
    return 0;
  }

  private void open(ClientWireProtocol.Call call) {
    Envelopes.Request request = Envelopes.readRequest(call.body());
    int id = connection().local().incrementAndGetNextStreamId();
    Exchange exchange = new Exchange(call, ctx.alloc());
    exchange.requestGzip = RequestEncoding.isGzip(request.metadata());
    if (request.streamToken() != 0) {
      exchange.sink = StreamEnds.reporting(StreamTokens.find(request.streamToken()), call);
    }
    streams.put(id, exchange);
    ChannelPromise headersWritten = ctx.newPromise();
    encoder()
        .writeHeaders(
            ctx,
            id,
            RequestHeaders.of(
                call,
                request,
                exchange.sink == null ? call.remainingMillis() : exchange.sink.remainingMillis(),
                authority(),
                scheme),
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
              acceptWritten(id, exchange);
            } else {
              notWritten(id, f.cause());
            }
          });
      return;
    }
    byte[] message = request.message();
    ByteBuf data = ctx.alloc().buffer(5 + message.length);
    data.writeByte(exchange.requestGzip ? 1 : 0).writeInt(message.length).writeBytes(message);
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

  private AsciiString authority() {
    if (authority == null) {
      authority = new AsciiString(owner.authority());
    }
    return authority;
  }

  /** The request did not leave whole: the server cannot have run it. */
  private void notWritten(int id, Throwable cause) {
    Exchange e = streams.remove(id);
    if (e != null) {
      e.deframer.release();
      e.call.onLost(new TetherException("the request was not written: " + cause, cause));
    }
  }

  /** A stream ended or the limit grew: a waiting call may start, then the runtime's. */
  private void openWaiting() {
    boolean opened = false;
    while (!waiting.isEmpty()
        && connection().local().canOpenStream()
        && !connection().goAwayReceived()) {
      open(waiting.poll());
      opened = true;
    }
    if (opened) {
      flush(ctx);
    }
    if (ready && hasRoom()) {
      owner.onRoom();
    }
  }

  // ---- what the server sends ----

  private void answered(int id, Exchange e) {
    streams.remove(id);
    e.deframer.release();
    Http2Headers trailers = e.trailers;
    Status invalid = StatusOfHttp.invalid(e.headers);
    if (invalid != null) {
      trailers = StatusOfHttp.trailersOf(invalid);
    } else if (trailers == null || trailers.get(GrpcHeaders.STATUS) == null) {
      trailers = StatusOfHttp.trailersFor(e.headers);
    }
    GrpcStatuses.endCall(e.call, Envelopes.answer(e.headers, e.messages, trailers), trailers);
  }

  /**
   * The answer cannot be read: the call ends with {@code trailers}' status, the stream is reset.
   */
  private void failedAnswer(int id, Exchange e, Http2Headers trailers) {
    e.trailers = trailers;
    answered(id, e);
    resetStream(ctx, id, Http2Error.CANCEL.code(), ctx.newPromise());
    flush(ctx);
  }

  /**
   * A server stream's response HEADERS: the server took it, so the runtime's call is answered (no
   * retry from now on) and the messages go to the stream's sink as they come.
   */
  private void accept(int id, Exchange e, Http2Headers headers) {
    e.accepted = true;
    e.headersSeen = true;
    e.headers = headers;
    e.sink.onAccepted(new Control(id));
    e.call.onStreamAccepted(Envelopes.answer(headers, List.of(), null));
  }

  /**
   * The HEADERS of a stream the caller sends on were written: it is accepted now, since its
   * messages go straight to the stream and are not kept to be sent again elsewhere.
   */
  private void acceptWritten(int id, Exchange e) {
    if (streams.get(id) != e) {
      return; // ended before the write completed
    }
    e.accepted = true;
    e.call.onWritten();
    e.sink.onAccepted(new Control(id));
    e.call.onStreamAccepted(Envelopes.answer(null, List.of(), null));
  }

  /**
   * Hands an accepted stream's whole messages to its sink; its trailers or a bad message end it.
   */
  private void feed(int id, Exchange e, boolean endOfStream) {
    try {
      for (MessageDeframer.Message m = e.deframer.next(); m != null; m = e.deframer.next()) {
        e.sink.onMessage(e.messageOf(m), 5 + m.bytes().length);
      }
    } catch (StatusException bad) {
      failedStream(id, e, bad.getStatus());
      return;
    }
    if (endOfStream) { // DATA ended the stream: no trailers, no status
      streams.remove(id);
      e.deframer.release();
      e.sink.onTrailers(StatusOfHttp.trailersFor(e.headers));
    }
  }

  /** An accepted stream's answer cannot be read: it ends with {@code status}, and is reset. */
  private void failedStream(int id, Exchange e, Status status) {
    streams.remove(id);
    e.deframer.release();
    e.sink.onTrailers(StatusOfHttp.trailersOf(status));
    resetStream(ctx, id, Http2Error.CANCEL.code(), ctx.newPromise());
    flush(ctx);
  }

  /** What a stream's caller does to it, hopping onto the connection's loop. */
  private final class Control implements StreamSink.Control {
    private final int id;

    Control(int id) {
      this.id = id;
    }

    @Override
    public void consumed(int wireBytes) {
      ctx.executor().execute(() -> giveBack(id, wireBytes));
    }

    @Override
    public void send(byte[] message) {
      ctx.executor().execute(() -> writeData(id, message, false));
    }

    @Override
    public void halfClose() {
      ctx.executor().execute(() -> writeData(id, null, true));
    }

    @Override
    public Scheduler.Cancellable schedule(Runnable task, long delayNanos) {
      return owner.schedule(task, delayNanos);
    }

    @Override
    public void cancel() {
      ctx.executor()
          .execute(
              () -> {
                Exchange e = streams.remove(id);
                if (e != null) {
                  e.deframer.release();
                  resetStream(ctx, id, Http2Error.CANCEL.code(), ctx.newPromise());
                  flush(ctx);
                }
              });
    }
  }

  /** One message (or, null, none) on an open stream; dropped when the stream ended. */
  private void writeData(int id, byte[] message, boolean last) {
    Exchange e = streams.get(id);
    if (e == null) {
      return;
    }
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
    flush(ctx);
  }

  private void giveBack(int id, int wireBytes) {
    Http2Stream stream = connection().stream(id);
    if (stream == null) {
      return; // ended meanwhile: its window went with it
    }
    try {
      if (decoder().flowController().consumeBytes(stream, wireBytes)) {
        flush(ctx);
      }
    } catch (Http2Exception e) {
      owner.onFailed(e);
    }
  }

  private final class Frames extends Http2EventAdapter {
    @Override
    public void onPingAckRead(ChannelHandlerContext ctx, long data) {
      keepalive.onPingAnswered(data);
    }

    @Override
    public void onSettingsRead(ChannelHandlerContext ctx, Http2Settings settings) {
      if (!ready) {
        ready = true;
        widenConnectionWindow();
        keepalive.start();
        Long max = settings.maxConcurrentStreams();
        owner.onReady(
            "HTTP/2 settings read"
                + (max == null ? "" : ", max concurrent streams " + max.longValue()));
      }
      openWaiting();
    }

    @Override
    public void onHeadersRead(
        ChannelHandlerContext ctx,
        int streamId,
        Http2Headers headers,
        int padding,
        boolean endOfStream) {
      Exchange e = streams.get(streamId);
      if (e == null) {
        return;
      }
      Status invalid = e.headersSeen || endOfStream ? null : StatusOfHttp.invalid(headers);
      if (e.accepted) {
        if (invalid != null) {
          failedStream(streamId, e, invalid);
          return;
        }
        if (!e.headersSeen && !endOfStream) {
          e.headersSeen = true;
          e.headers = headers;
          e.sink.onHeaders(headers);
          return;
        }
        streams.remove(streamId);
        e.deframer.release();
        e.sink.onTrailers(headers);
        return;
      }
      if (invalid != null && e.headers == null) { // not gRPC's answer: nothing after it counts
        e.headers = headers;
        failedAnswer(streamId, e, StatusOfHttp.trailersOf(invalid));
        return;
      }
      if (e.sink != null && !endOfStream) {
        accept(streamId, e, headers);
        return;
      }
      if (e.headers == null && !endOfStream) {
        e.headers = headers;
      } else {
        e.trailers = headers;
      }
      if (endOfStream) {
        if (e.headers == null) { // Trailers-Only: the one HEADERS is both
          e.headers = headers;
        }
        answered(streamId, e);
      }
    }

    @Override
    public void onHeadersRead(
        ChannelHandlerContext ctx,
        int streamId,
        Http2Headers headers,
        int streamDependency,
        short weight,
        boolean exclusive,
        int padding,
        boolean endOfStream) {
      onHeadersRead(ctx, streamId, headers, padding, endOfStream);
    }

    @Override
    public int onDataRead(
        ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding, boolean endOfStream) {
      int processed = data.readableBytes() + padding;
      Exchange e = streams.get(streamId);
      if (e == null) {
        return processed;
      }
      e.deframer.add(data);
      if (e.accepted) {
        feed(streamId, e, endOfStream);
        return padding; // the rest is given back as the caller reads it
      }
      try {
        for (MessageDeframer.Message m = e.deframer.next(); m != null; m = e.deframer.next()) {
          e.messages.add(e.messageOf(m));
          if (e.messages.size() > 1) { // a unary answer has one: stop before buffering more
            throw Status.INTERNAL
                .withDescription("a unary answer had more than one message")
                .asException();
          }
        }
      } catch (StatusException bad) {
        failedAnswer(streamId, e, StatusOfHttp.trailersOf(bad.getStatus()));
        return processed;
      }
      if (endOfStream) {
        answered(streamId, e);
      }
      return processed;
    }

    @Override
    public void onRstStreamRead(ChannelHandlerContext ctx, int streamId, long errorCode) {
      Exchange e = streams.remove(streamId);
      if (e == null) {
        return;
      }
      e.deframer.release();
      if (e.accepted) {
        e.sink.onLost(
            "the server reset the stream (RST_STREAM " + Http2Error.valueOf(errorCode) + ")");
        return;
      }
      if (errorCode == Http2Error.REFUSED_STREAM.code()) {
        e.call.onRefused("the server refused the stream (RST_STREAM REFUSED_STREAM)");
      } else {
        Http2Error error = Http2Error.valueOf(errorCode);
        e.call.onLost(
            new TetherException(
                "the server reset the stream (RST_STREAM "
                    + (error == null ? errorCode : error)
                    + ")"));
      }
    }
  }

  /** The connection's own view of its streams: GOAWAY and streams the codec closed itself. */
  private final class StreamEvents extends Http2ConnectionAdapter {
    /** Before the codec closes the streams above {@code lastStreamId}: they never ran. */
    @Override
    public void onGoAwayReceived(int lastStreamId, long errorCode, ByteBuf debugData) {
      String why =
          "GOAWAY("
              + Http2Error.valueOf(errorCode)
              + ", last stream "
              + lastStreamId
              + ")"
              + (debugData.isReadable() ? ": " + debugData.toString(StandardCharsets.UTF_8) : "");
      List<Integer> above = new ArrayList<>();
      for (IntObjectMap.PrimitiveEntry<Exchange> e : streams.entries()) {
        if (e.key() > lastStreamId) {
          above.add(e.key());
        }
      }
      for (int id : above) {
        Exchange e = streams.remove(id);
        e.deframer.release();
        e.call.onRefused("the server never took the stream: " + why);
      }
      while (!waiting.isEmpty()) {
        waiting.poll().onRefused("the server is going away before the call was sent: " + why);
      }
      if (errorCode == Http2Error.ENHANCE_YOUR_CALM.code()
          && "too_many_pings".equals(debugData.toString(StandardCharsets.UTF_8))) {
        keepalivePolicy.onTooManyPings(); // gRFC A8: later connections ping half as often
      }
      owner.onGoingAway(why);
    }

    /** A stream the codec closed without an ending of ours (a stream error): its call is lost. */
    @Override
    public void onStreamClosed(Http2Stream stream) {
      Exchange e = streams.remove(stream.id());
      if (e != null) {
        e.deframer.release();
        String why = "stream " + stream.id() + " closed without an answer";
        if (e.accepted) {
          e.sink.onLost(ctx.channel().isActive() ? why : "the connection was lost");
        } else {
          e.call.onLost(new TetherException(why));
        }
      }
      openWaiting();
    }
  }

  /**
   * HTTP/2 errors are the codec's (GOAWAY or RST_STREAM, as the error says); anything else breaks
   * the connection, which the runtime closes, ending its calls by the at-most-once rule.
   */
  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) throws Exception {
    if (Http2CodecUtil.getEmbeddedHttp2Exception(cause) != null) {
      super.exceptionCaught(ctx, cause);
    } else {
      owner.onFailed(cause);
    }
  }

  /** Builds a link for one channel; Netty's builder wires the codec and settings. */
  static final class Builder
      extends AbstractHttp2ConnectionHandlerBuilder<GrpcClientLink, Builder> {
    private final ClientWireProtocol.Connection owner;

    private final KeepalivePolicy keepalive;

    Builder(ClientWireProtocol.Connection owner, KeepalivePolicy keepalive) {
      this.owner = owner;
      this.keepalive = keepalive;
      connection(clientConnection());
      gracefulShutdownTimeoutMillis(0);
      initialSettings(Http2Settings.defaultSettings().initialWindowSize(WINDOW).pushEnabled(false));
    }

    /**
     * A client's HTTP/2 connection whose DATA is shared out evenly among streams: gRPC sends no
     * priorities, and the default weighted tree cost work on every stream's open and close.
     */
    private static Http2Connection clientConnection() {
      DefaultHttp2Connection connection = new DefaultHttp2Connection(false);
      connection
          .remote()
          .flowController(
              new DefaultHttp2RemoteFlowController(
                  connection, new UniformStreamByteDistributor(connection)));
      return connection;
    }

    @Override
    public GrpcClientLink build() {
      return super.build();
    }

    @Override
    protected GrpcClientLink build(
        Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder, Http2Settings settings) {
      GrpcClientLink link = new GrpcClientLink(decoder, encoder, settings, owner, keepalive);
      frameListener(link.new Frames());
      return link;
    }
  }
}
