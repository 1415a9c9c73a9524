package dev.tether.grpc;

import dev.tether.observe.TetherEvent;
import dev.tether.spi.WireProtocol;
import io.grpc.Metadata;
import io.grpc.ServerMethodDefinition;
import io.grpc.Status;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.AbstractHttp2ConnectionHandlerBuilder;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2EventAdapter;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2Stream;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One gRPC client's HTTP/2 connection: turns each request stream into a {@link GrpcServerCall} of
 * the method its path names, and is the only writer of the connection's frames. Every stream's
 * state lives on the connection's event loop.
 */
final class GrpcConnection extends Http2ConnectionHandler {
  private static final Logger log = LoggerFactory.getLogger(GrpcConnection.class);

  /**
   * Each stream's window, and the connection's: how much a client may send that no service asked
   * for yet (grpc-java's default).
   */
  static final int WINDOW = 1024 * 1024;

  private final Map<String, ServerMethodDefinition<?, ?>> methods;
  private final int maxInboundMessageSize;
  private final WireProtocol.Host host;

  /** How the server counts this connection and its calls, and where their service code runs. */
  private final WireProtocol.HostedConnection hosted;

  private final Http2Connection.PropertyKey callKey;
  private ChannelHandlerContext ctx;

  private GrpcConnection(
      Http2ConnectionDecoder decoder,
      Http2ConnectionEncoder encoder,
      Http2Settings settings,
      Map<String, ServerMethodDefinition<?, ?>> methods,
      int maxInboundMessageSize,
      WireProtocol.Host host,
      WireProtocol.HostedConnection hosted) {
    super(decoder, encoder, settings);
    this.methods = methods;
    this.maxInboundMessageSize = maxInboundMessageSize;
    this.host = host;
    this.hosted = hosted;
    this.callKey = connection().newKey();
    connection().addListener(new StreamEvents());
  }

  /** The PING between the two GOAWAYs of a drain carries this. */
  private static final long DRAIN_PING = 0x7465746865726472L;

  /** Closes a client that has not sent its SETTINGS in time; set as the handler is added. */
  private HandshakeDeadline handshake;

  /** True once a drain began; then the connection closes when its last stream does. */
  private boolean draining;

  /**
   * gRPC's graceful shutdown (any thread): a GOAWAY naming the highest stream id, so the client
   * stops opening streams, and a PING; at its answer, a second GOAWAY with the last stream really
   * accepted, since streams the client opened before it saw the first may still arrive. The
   * connection closes when its last stream ends; the future completes then.
   */
  CompletableFuture<Void> drain() {
    CompletableFuture<Void> closed = new CompletableFuture<>();
    ctx.channel().closeFuture().addListener(f -> closed.complete(null));
    ctx.executor()
        .execute(
            () -> {
              if (draining || !ctx.channel().isActive()) {
                return;
              }
              draining = true;
              hosted.emit(
                  TetherEvent.Kind.GOAWAY_SENT,
                  "server is shutting down: GOAWAY, then a PING before the last stream id",
                  null);
              goAway(
                  ctx,
                  Integer.MAX_VALUE,
                  Http2Error.NO_ERROR.code(),
                  Unpooled.EMPTY_BUFFER,
                  ctx.newPromise());
              encoder().writePing(ctx, false, DRAIN_PING, ctx.newPromise());
              flush();
            });
    return closed;
  }

  /** The client answered the drain's PING: the second GOAWAY, then close once nothing runs. */
  private void drainPingAnswered() {
    int last = connection().remote().lastStreamCreated();
    goAway(ctx, last, Http2Error.NO_ERROR.code(), Unpooled.EMPTY_BUFFER, ctx.newPromise());
    flush();
    closeIfDrained();
  }

  private void closeIfDrained() {
    if (draining && connection().numActiveStreams() == 0) {
      ctx.close();
    }
  }

  /** Builds a connection for one channel; Netty's builder wires the codec and settings. */
  static final class Builder
      extends AbstractHttp2ConnectionHandlerBuilder<GrpcConnection, Builder> {
    private final Map<String, ServerMethodDefinition<?, ?>> methods;
    private final int maxInboundMessageSize;
    private final WireProtocol.Host host;
    private final WireProtocol.HostedConnection hosted;

    Builder(
        Map<String, ServerMethodDefinition<?, ?>> methods,
        int maxInboundMessageSize,
        WireProtocol.Host host,
        WireProtocol.HostedConnection hosted) {
      this.methods = methods;
      this.maxInboundMessageSize = maxInboundMessageSize;
      this.host = host;
      this.hosted = hosted;
      server(true);
      // A server that closes a connection means now (its drain is its own business): Netty's
      // default would keep it open up to 30 s for the streams still running.
      gracefulShutdownTimeoutMillis(0);
      initialSettings(
          Http2Settings.defaultSettings()
              .maxConcurrentStreams(host.maxConcurrentRequests())
              .initialWindowSize(WINDOW));
    }

    /** The header list size announced and enforced (Netty's decoder reads it from the settings). */
    Builder maxHeaderListSize(int bytes) {
      initialSettings().maxHeaderListSize(bytes);
      return this;
    }

    @Override
    public GrpcConnection build() {
      return super.build();
    }

    @Override
    protected GrpcConnection build(
        Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder, Http2Settings settings) {
      GrpcConnection c =
          new GrpcConnection(
              decoder, encoder, settings, methods, maxInboundMessageSize, host, hosted);
      frameListener(c.new Frames());
      return c;
    }
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
    this.ctx = ctx;
    super.handlerAdded(ctx);
    // The connection's own window starts at HTTP/2's 64 KiB: one stream whose service reads
    // slowly would hold all of it. Widen it to a stream's.
    Http2Stream whole = connection().connectionStream();
    decoder()
        .flowController()
        .incrementWindowSize(whole, WINDOW - decoder().flowController().windowSize(whole));
    handshake = HandshakeDeadline.start(ctx, host, hosted);
  }

  /**
   * HTTP/2 errors are the codec's (GOAWAY or RST_STREAM, as the error says); anything else, such as
   * a client that reset its socket, ends this connection only, quietly: its streams' calls are
   * cancelled as their streams close.
   */
  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) throws Exception {
    if (Http2CodecUtil.getEmbeddedHttp2Exception(cause) != null) {
      super.exceptionCaught(ctx, cause);
    } else {
      log.debug("closing gRPC connection {}", ctx.channel().remoteAddress(), cause);
      ctx.close();
    }
  }

  /** A connection error (a malformed frame, a broken rule): the server's event, then GOAWAY. */
  @Override
  protected void onConnectionError(
      ChannelHandlerContext ctx, boolean outbound, Throwable cause, Http2Exception http2Ex) {
    hosted.emit(TetherEvent.Kind.PROTOCOL_ERROR, String.valueOf(cause.getMessage()), cause);
    super.onConnectionError(ctx, outbound, cause, http2Ex);
  }

  /** The call of {@code stream}; null for a stream that has none. */
  private GrpcServerCall<?, ?> callOf(Http2Stream stream) {
    return stream == null ? null : stream.getProperty(callKey);
  }

  /** The frames the client sends. */
  private final class Frames extends Http2EventAdapter {
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
    public void onHeadersRead(
        ChannelHandlerContext ctx,
        int streamId,
        Http2Headers headers,
        int padding,
        boolean endOfStream) {
      Http2Stream stream = connection().stream(streamId);
      GrpcServerCall<?, ?> call = callOf(stream);
      if (call != null) {
        // Trailers from the client: only their end of stream means anything.
        call.inbound(null, endOfStream);
      } else {
        request(stream, headers, endOfStream);
      }
    }

    @Override
    public void onSettingsRead(ChannelHandlerContext ctx, Http2Settings settings) {
      handshake.settingsRead();
    }

    @Override
    public void onPingAckRead(ChannelHandlerContext ctx, long data) {
      if (data == DRAIN_PING && draining) {
        drainPingAnswered();
      }
    }

    @Override
    public int onDataRead(
        ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding, boolean endOfStream) {
      GrpcServerCall<?, ?> call = callOf(connection().stream(streamId));
      if (call == null || call.isClosed()) {
        // Nobody will read it: give the credit back now.
        return data.readableBytes() + padding;
      }
      call.inbound(data, endOfStream);
      // The data's credit returns as the service asks for messages (see GrpcServerCall).
      return padding;
    }
  }

  /** Streams that close, by either side's end, a reset or the connection's end. */
  private final class StreamEvents extends Http2EventAdapter {
    @Override
    public void onStreamClosed(Http2Stream stream) {
      GrpcServerCall<?, ?> call = callOf(stream);
      if (call != null) {
        call.streamClosed();
      }
      // Netty counts the stream active until its listeners have run: look on the next turn.
      ctx.executor().execute(GrpcConnection.this::closeIfDrained);
    }
  }

  /** A new request stream: the method it names, if it is a gRPC request for a known method. */
  private void request(Http2Stream stream, Http2Headers headers, boolean endOfStream) {
    if (!"POST".contentEquals(headers.method() == null ? "" : headers.method())) {
      httpError(stream, endOfStream, "405", "gRPC requires POST, not " + headers.method());
      return;
    }
    CharSequence contentType = headers.get("content-type");
    if (!GrpcHeaders.isGrpc(contentType)) {
      httpError(stream, endOfStream, "415", "unsupported content-type: " + contentType);
      return;
    }
    CharSequence path = headers.path();
    String name = path != null && path.length() > 1 ? path.toString().substring(1) : "";
    ServerMethodDefinition<?, ?> method = methods.get(name);
    if (method == null) {
      method = TetherMethods.find(host, name);
    }
    if (method == null) {
      trailersOnly(
          stream,
          endOfStream,
          Status.UNIMPLEMENTED.withDescription("Method not found: " + name),
          new Metadata());
      return;
    }
    CharSequence encoding = headers.get(GrpcHeaders.ENCODING);
    boolean gzip = encoding != null && Gzip.NAME.contentEquals(encoding);
    if (encoding != null && !gzip && !"identity".contentEquals(encoding)) {
      Metadata accept = new Metadata();
      accept.put(
          Metadata.Key.of(GrpcHeaders.ACCEPT_ENCODING, Metadata.ASCII_STRING_MARSHALLER),
          GrpcHeaders.ACCEPTED_ENCODINGS);
      trailersOnly(
          stream,
          endOfStream,
          Status.UNIMPLEMENTED.withDescription("unsupported grpc-encoding: " + encoding),
          accept);
      return;
    }
    long timeoutNanos;
    try {
      timeoutNanos = GrpcHeaders.timeoutNanos(headers.get(GrpcHeaders.TIMEOUT));
    } catch (IllegalArgumentException malformed) {
      trailersOnly(
          stream, endOfStream, Status.INTERNAL.withDescription(malformed.getMessage()), null);
      return;
    }
    GrpcCallContext context =
        new GrpcCallContext(
            method.getMethodDescriptor(), headers, ctx.channel(), host.ticker(), timeoutNanos);
    GrpcServerCall<?, ?> call =
        new GrpcServerCall<>(
            this,
            context,
            hosted.callStarted(context),
            stream,
            method,
            headers.authority() == null ? null : headers.authority().toString(),
            new GrpcServerCall.Encodings(
                gzip, Gzip.acceptedBy(headers.get(GrpcHeaders.ACCEPT_ENCODING))),
            maxInboundMessageSize);
    stream.setProperty(callKey, call);
    call.start(GrpcHeaders.toMetadata(headers), timeoutNanos);
    if (endOfStream) {
      call.inbound(null, true);
    }
  }

  /** Answers a stream that is not a gRPC call with an HTTP error (gRPC clients read its status). */
  private void httpError(Http2Stream stream, boolean endOfStream, String httpStatus, String why) {
    log.debug("answering HTTP {} to {}: {}", httpStatus, ctx.channel().remoteAddress(), why);
    Http2Headers h = new DefaultHttp2Headers().status(httpStatus).set("content-type", "text/plain");
    GrpcHeaders.addStatus(h, Status.INTERNAL.withDescription(why));
    finish(stream, h, endOfStream);
  }

  /** Answers a stream at once with one HEADERS frame that holds the status (Trailers-Only). */
  private void trailersOnly(
      Http2Stream stream, boolean endOfStream, Status status, Metadata trailers) {
    Http2Headers h = GrpcHeaders.addStatus(GrpcHeaders.responseHeaders(), status);
    if (trailers != null) {
      GrpcHeaders.addMetadata(h, trailers);
    }
    finish(stream, h, endOfStream);
  }

  /** Writes the last headers; a client still sending is told to stop, without error. */
  private void finish(Http2Stream stream, Http2Headers last, boolean clientDone) {
    writeHeaders(stream, last, true);
    if (!clientDone) {
      reset(stream, Http2Error.NO_ERROR);
    }
    flush();
  }

  // The writes below are the calls' only way to the wire; each runs on the event loop.

  void writeHeaders(Http2Stream stream, Http2Headers headers, boolean endOfStream) {
    encoder().writeHeaders(ctx, stream.id(), headers, 0, endOfStream, ctx.newPromise());
  }

  /** Completes once the data is on the socket, or failed with its stream. */
  ChannelFuture writeData(Http2Stream stream, ByteBuf data) {
    return encoder().writeData(ctx, stream.id(), data, 0, false, ctx.newPromise());
  }

  void reset(Http2Stream stream, Http2Error error) {
    resetStream(ctx, stream.id(), error.code(), ctx.newPromise());
  }

  /** Flushes through this handler, so flow-controlled DATA waiting in the encoder goes too. */
  void flush() {
    flush(ctx);
  }

  /** Gives the client {@code bytes} more of the stream's window: the service took them. */
  void consume(Http2Stream stream, int bytes) {
    try {
      if (decoder().flowController().consumeBytes(stream, bytes)) {
        flush();
      }
    } catch (Http2Exception e) {
      onError(ctx, false, e);
    }
  }

  ChannelHandlerContext context() {
    return ctx;
  }

  /** Where the calls' listener events run, as the server's execution mode says. */
  Executor serviceExecutor() {
    return hosted.executor();
  }

  WireProtocol.HostedConnection hosted() {
    return hosted;
  }

  WireProtocol.Host host() {
    return host;
  }
}
