package dev.tether.grpc.client;

import dev.tether.TetherException;
import dev.tether.grpc.InboundBudget;
import dev.tether.grpc.LateFrames;
import dev.tether.spi.ClientWireProtocol;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
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
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.handler.codec.http2.UniformStreamByteDistributor;
import io.netty.handler.ssl.SslHandler;
import java.nio.charset.StandardCharsets;

/**
 * One HTTP/2 connection to a gRPC server, as a {@link ClientWireProtocol.Link}: each call the
 * runtime sends becomes a stream (HEADERS, one DATA with END_STREAM), whose answer (headers,
 * messages, trailers) goes back whole. What the server proves decides each call's ending: a stream
 * it refused (RST_STREAM REFUSED_STREAM) or never took (above its GOAWAY's last stream id) is
 * refused; one reset otherwise, after the request left, is lost. Calls beyond the server's
 * SETTINGS_MAX_CONCURRENT_STREAMS wait here, unwritten, for a stream to end. The link keeps the
 * connection (readiness, keepalive, GOAWAY); its {@link CallTable} the calls, its {@link
 * RequestWriter} what leaves and its {@link AnswerReader} what arrives. Everything on the channel's
 * event loop.
 */
final class GrpcClientLink extends Http2ConnectionHandler implements ClientWireProtocol.Link {
  /** Each stream's receive window, and the connection's (grpc-java's default). */
  static final int WINDOW = 1024 * 1024;

  /** The largest answer message taken (gRPC's default receive limit). */
  static final int MAX_MESSAGE = 4 * 1024 * 1024;

  private final ClientWireProtocol.Connection owner;

  /**
   * The answer bytes the connection may make the client hold over all its calls: four answers of
   * the largest size. A server allowing many streams could otherwise fill the heap by sending every
   * call an unfinished message.
   */
  static final long MAX_HELD = 4L * MAX_MESSAGE;

  private final CallTable calls = new CallTable(new InboundBudget(MAX_HELD));
  private final RequestWriter writer = new RequestWriter(this, calls);
  private final AnswerReader reader = new AnswerReader(this, calls);

  private ChannelHandlerContext ctx;

  private final KeepalivePolicy keepalivePolicy;
  private final Keepalive keepalive;

  /** True once the server's first SETTINGS arrived. */
  private boolean ready;

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
    writer.useTls(ctx.pipeline().get(SslHandler.class) != null);
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

  ChannelHandlerContext ctx() {
    return ctx;
  }

  ClientWireProtocol.Connection owner() {
    return owner;
  }

  RequestWriter writer() {
    return writer;
  }

  AnswerReader reader() {
    return reader;
  }

  /** Resets stream {@code id} with CANCEL, at once: the caller gave up or its answer is bad. */
  void cancelStream(int id) {
    resetStream(ctx, id, Http2Error.CANCEL.code(), ctx.newPromise());
    flush(ctx);
  }

  /** What the keepalive asks of this connection. */
  private final class Liveness implements Keepalive.Owner {
    @Override
    public boolean hasCalls() {
      return calls.hasStreams();
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

  void onPingAnswered(long data) {
    keepalive.onPingAnswered(data);
  }

  /** The server's SETTINGS: the first make the connection ready; any may let waiting calls in. */
  void onSettings(Http2Settings settings) {
    if (!ready) {
      ready = true;
      widenConnectionWindow();
      keepalive.start();
      Long max = settings.maxConcurrentStreams();
      owner.onReady(
          "HTTP/2 settings read" + (max == null ? "" : ", max concurrent streams " + max));
    }
    openWaiting();
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

  /** A stream error: a late frame for a stream already ended is dropped, the rest reset it. */
  @Override
  protected void onStreamError(
      ChannelHandlerContext ctx,
      boolean outbound,
      Throwable cause,
      Http2Exception.StreamException http2Ex) {
    if (!outbound && LateFrames.isForAGoneStream(connection(), http2Ex)) {
      return;
    }
    super.onStreamError(ctx, outbound, cause, http2Ex);
  }

  // ---- what the runtime asks ----

  @Override
  public void send(ClientWireProtocol.Call call) {
    if (connection().goAwayReceived()) {
      call.onRefused("the server is going away (GOAWAY received) and never took the call");
      return;
    }
    if (!connection().local().canOpenStream()) {
      calls.await(call);
      return;
    }
    writer.open(call);
    writer.flushAfterThisTurn();
  }

  @Override
  public void cancel(ClientWireProtocol.Call call) {
    if (calls.unwait(call)) {
      return;
    }
    int id = calls.streamOf(call);
    if (id != 0) {
      calls.end(id);
      cancelStream(id);
    }
  }

  @Override
  public int activeCalls() {
    return calls.size();
  }

  /** Below the server's SETTINGS_MAX_CONCURRENT_STREAMS, and not going away. */
  @Override
  public boolean hasRoom() {
    return !calls.anyWaiting()
        && connection().local().canOpenStream()
        && !connection().goAwayReceived();
  }

  /** A stream ended or the limit grew: a waiting call may start, then the runtime's. */
  private void openWaiting() {
    boolean opened = false;
    while (calls.anyWaiting()
        && connection().local().canOpenStream()
        && !connection().goAwayReceived()) {
      writer.open(calls.nextWaiting());
      opened = true;
    }
    if (opened) {
      flush(ctx);
    }
    if (ready && hasRoom()) {
      owner.onRoom();
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
      for (Exchange e : calls.endAbove(lastStreamId)) {
        e.call.onRefused("the server never took the stream: " + why);
      }
      while (calls.anyWaiting()) {
        calls.nextWaiting().onRefused("the server is going away before the call was sent: " + why);
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
      Exchange e = calls.end(stream.id());
      if (e != null) {
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
      frameListener(link.reader);
      return link;
    }
  }
}
