package dev.tether.grpc;

import dev.tether.observe.TetherEvent;
import dev.tether.spi.WireProtocol;
import io.grpc.ServerMethodDefinition;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.AbstractHttp2ConnectionHandlerBuilder;
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
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.IntConsumer;
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

  /** Turns each new stream's HEADERS into a call, or answers them. */
  private final GrpcRequests requests;

  private final WireProtocol.Host host;

  /** How the server counts this connection and its calls, and where their service code runs. */
  private final WireProtocol.HostedConnection hosted;

  private final Http2Connection.PropertyKey callKey;

  /** Judges the client's PINGs; told of every HEADERS and DATA the server sends. */
  private final PingPolicy pings;

  private ChannelHandlerContext ctx;

  /** Gathers the calls' writes into few flushes; made as the handler is added. */
  private WriteBatch writes;

  /** Run on the loop just before each flush. */
  private final ArrayDeque<Runnable> beforeFlush = new ArrayDeque<>();

  /** The request bytes this connection's calls hold, and how many they may. */
  private final InboundBudget inboundBudget;

  /** The response bytes this connection's calls hold, and how many past readiness they may. */
  private final OutboundBudget outboundBudget;

  private GrpcConnection(
      Http2ConnectionDecoder decoder,
      Http2ConnectionEncoder encoder,
      Http2Settings settings,
      Map<String, ServerMethodDefinition<?, ?>> methods,
      int maxInboundMessageSize,
      InboundBudget inboundBudget,
      OutboundBudget outboundBudget,
      WireProtocol.Host host,
      WireProtocol.HostedConnection hosted,
      PingPolicy pings) {
    super(decoder, encoder, settings);
    this.pings = pings;
    this.inboundBudget = inboundBudget;
    this.outboundBudget = outboundBudget;
    this.requests = new GrpcRequests(this, methods, maxInboundMessageSize);
    this.host = host;
    this.hosted = hosted;
    this.callKey = connection().newKey();
    connection().addListener(new StreamEvents());
  }

  /** Closes a client that has not sent its SETTINGS in time; set as the handler is added. */
  private HandshakeDeadline handshake;

  /** The server's reader idle on this connection; null when it has none. */
  private IdleWatch idle;

  /** Drains, ages, idles out or refuses the connection; set as the handler is added. */
  private ConnectionEnding ending;

  /** gRPC's graceful shutdown, from any thread ({@link ConnectionEnding#drain}). */
  CompletableFuture<Void> drain() {
    return ending.drain();
  }

  /** Builds a connection for one channel; Netty's builder wires the codec and settings. */
  static final class Builder
      extends AbstractHttp2ConnectionHandlerBuilder<GrpcConnection, Builder> {
    private final Map<String, ServerMethodDefinition<?, ?>> methods;
    private final int maxInboundMessageSize;
    private final WireProtocol.Host host;
    private final WireProtocol.HostedConnection hosted;
    private PingPolicy.Permit pings = PingPolicy.Permit.DEFAULT;
    private long maxInboundBytes = Long.MAX_VALUE;
    private long maxOutboundBytes = Long.MAX_VALUE;
    private long outboundStallNanos = Long.MAX_VALUE;

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

    /** How often the client may ping. */
    Builder pings(PingPolicy.Permit permit) {
      pings = permit;
      return this;
    }

    /** The request bytes the connection's calls may hold at once ({@link InboundBudget}). */
    Builder maxInboundBytes(long bytes) {
      maxInboundBytes = bytes;
      return this;
    }

    /**
     * The response bytes past readiness the connection's calls may hold, and how long a send may
     * wait for its client to read ({@link OutboundBudget}).
     */
    Builder maxOutboundBytes(long bytes, long stallNanos) {
      maxOutboundBytes = bytes;
      outboundStallNanos = stallNanos;
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
              decoder,
              encoder,
              settings,
              methods,
              maxInboundMessageSize,
              new InboundBudget(maxInboundBytes),
              new OutboundBudget(maxOutboundBytes, outboundStallNanos, host.scheduler()),
              host,
              hosted,
              new PingPolicy(pings, host.ticker()));
      frameListener(c.new Frames());
      return c;
    }
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
    this.ctx = ctx;
    this.writes = new WriteBatch(ctx.executor(), () -> flush(ctx));
    super.handlerAdded(ctx);
    // The connection's own window starts at HTTP/2's 64 KiB: one stream whose service reads
    // slowly would hold all of it. Widen it to a stream's.
    Http2Stream whole = connection().connectionStream();
    decoder()
        .flowController()
        .incrementWindowSize(whole, WINDOW - decoder().flowController().windowSize(whole));
    ending = new ConnectionEnding(this, ctx, host, hosted);
    handshake = HandshakeDeadline.start(ctx, host, hosted);
    hosted.onRefused(ending::refused);
    idle = IdleWatch.start(ctx, host, () -> connection().numActiveStreams(), ending::idleTooLong);
    ending.armAge();
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
        requests.open(stream, headers, endOfStream);
      }
    }

    @Override
    public void onSettingsRead(ChannelHandlerContext ctx, Http2Settings settings) {
      handshake.settingsRead();
    }

    /** Netty has answered it already; a client that pings too often is sent away. */
    @Override
    public void onPingRead(ChannelHandlerContext ctx, long data) {
      ending.pinged(pings);
    }

    @Override
    public void onPingAckRead(ChannelHandlerContext ctx, long data) {
      ending.pingAnswered(data);
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
      if (idle != null) {
        idle.active();
      }
      // Netty counts the stream active until its listeners have run: look on the next turn.
      ctx.executor().execute(ending::closeIfDrained);
    }
  }

  /** The call {@link GrpcRequests} started on {@code stream}; its frames go to it from now on. */
  void attach(Http2Stream stream, GrpcServerCall<?, ?> call) {
    stream.setProperty(callKey, call);
  }

  // The writes below are the calls' only way to the wire; each runs on the event loop. HEADERS
  // and DATA clear the client's ping strikes once written, not when queued: DATA may wait long in
  // the flow controller, and clients ping as each frame of it reaches them.

  void writeHeaders(Http2Stream stream, Http2Headers headers, boolean endOfStream) {
    encoder()
        .writeHeaders(ctx, stream.id(), headers, 0, endOfStream, ctx.newPromise())
        .addListener(written -> pings.serverSent());
  }

  /**
   * Writes {@code data} in pieces of at most a frame (so a large message counts as written frame by
   * frame); {@code written} hears each piece's size once it is on the socket, or failed with its
   * stream.
   */
  void writeData(Http2Stream stream, ByteBuf data, IntConsumer written) {
    while (data.isReadable()) {
      int size = Math.min(Http2CodecUtil.DEFAULT_MAX_FRAME_SIZE, data.readableBytes());
      encoder()
          .writeData(ctx, stream.id(), data.readRetainedSlice(size), 0, false, ctx.newPromise())
          .addListener(
              done -> {
                pings.serverSent();
                written.accept(size);
              });
    }
    data.release();
  }

  void reset(Http2Stream stream, Http2Error error) {
    resetStream(ctx, stream.id(), error.code(), ctx.newPromise());
  }

  /**
   * Flushes through this handler, so flow-controlled DATA waiting in the encoder goes too; during a
   * read or a run of the services' writes, once at its end.
   */
  void flush() {
    writes.flush();
  }

  /** Runs {@code task} on the loop, batched with the other writes services hand over. */
  void onLoop(Runnable task) {
    writes.execute(task);
  }

  /**
   * Runs {@code task} on the loop with the next batched writes, without waking the loop for it:
   * something that follows soon wakes it (see {@link WriteBatch#lazily}).
   */
  void onLoopLazily(Runnable task) {
    writes.lazily(task);
  }

  /** Holds back the calls' events during a read, so one read's events start together. */
  SerialTasks.Starts eventStarts() {
    return writes;
  }

  /** Runs {@code task} (on the loop) just before the connection's next flush. */
  void beforeFlush(Runnable task) {
    beforeFlush.add(task);
  }

  /** What waits for the next flush ({@link HeldMessages}) is written first. */
  @Override
  public void flush(ChannelHandlerContext ctx) {
    Runnable task;
    while ((task = beforeFlush.poll()) != null) {
      task.run();
    }
    super.flush(ctx);
  }

  /** Runs {@code task} on the loop in a later run of the batched writes, whatever the thread. */
  void onLoopLater(Runnable task) {
    writes.later(task);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    writes.reading();
    super.channelRead(ctx, msg);
  }

  /**
   * The read burst ended: Netty's handler flushes what it and the calls wrote. Any bytes count as
   * life for the reader idle: once per read burst, not per frame.
   */
  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
    if (idle != null) {
      idle.active();
    }
    writes.readComplete();
    super.channelReadComplete(ctx);
  }

  /** Events held back by a read that never completed still start (their calls are cancelled). */
  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    super.channelInactive(ctx);
    writes.startHeld();
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

  /** The request bytes this connection's calls hold; its counts may be read from any thread. */
  InboundBudget inboundBudget() {
    return inboundBudget;
  }

  OutboundBudget outboundBudget() {
    return outboundBudget;
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
