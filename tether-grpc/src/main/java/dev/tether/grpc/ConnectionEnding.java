package dev.tether.grpc;

import dev.tether.observe.TetherEvent;
import dev.tether.spi.Scheduler;
import dev.tether.spi.WireProtocol;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.Http2Error;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;

/**
 * How one gRPC connection ends, short of its client closing it: gRPC's graceful drain (GOAWAY, a
 * PING, a second GOAWAY), its maximum age, the server's reader idle, a client that pings too often,
 * and a refusal. Each sends its GOAWAY and its event once; all on the connection's event loop.
 */
final class ConnectionEnding {
  /** The PING between the two GOAWAYs of a drain carries this. */
  private static final long DRAIN_PING = 0x7465746865726472L;

  /** The GOAWAY's debug data for a client that pings too often, as gRPC's servers send it. */
  static final String TOO_MANY_PINGS = "too_many_pings";

  private final GrpcConnection connection;
  private final ChannelHandlerContext ctx;
  private final WireProtocol.Host host;
  private final WireProtocol.HostedConnection hosted;

  /** True once a drain began; then the connection closes when its last stream does. */
  private boolean draining;

  /** True once the client pinged too often: the connection is ending. */
  private boolean pingedOut;

  ConnectionEnding(
      GrpcConnection connection,
      ChannelHandlerContext ctx,
      WireProtocol.Host host,
      WireProtocol.HostedConnection hosted) {
    this.connection = connection;
    this.ctx = ctx;
    this.host = host;
    this.hosted = hosted;
  }

  /** Arms the connection's maximum age, if the server gives it one. */
  void armAge() {
    long age = host.drawConnectionAge().toNanos();
    if (age > 0) {
      onLoopAfter(age, this::aged);
    }
  }

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
            () ->
                startDrain(
                    TetherEvent.Kind.GOAWAY_SENT,
                    "server is shutting down: GOAWAY, then a PING before the last stream id"));
    return closed;
  }

  /** The first GOAWAY and the PING of a drain, unless one began already. */
  private void startDrain(TetherEvent.Kind kind, String why) {
    if (draining || !ctx.channel().isActive()) {
      return;
    }
    draining = true;
    hosted.emit(kind, why, null);
    connection.goAway(
        ctx,
        Integer.MAX_VALUE,
        Http2Error.NO_ERROR.code(),
        Unpooled.EMPTY_BUFFER,
        ctx.newPromise());
    connection.encoder().writePing(ctx, false, DRAIN_PING, ctx.newPromise());
    connection.flush();
  }

  /** The client answered a PING: when the drain's, the second GOAWAY, then close once idle. */
  void pingAnswered(long data) {
    if (data != DRAIN_PING || !draining) {
      return;
    }
    int last = connection.connection().remote().lastStreamCreated();
    connection.goAway(
        ctx, last, Http2Error.NO_ERROR.code(), Unpooled.EMPTY_BUFFER, ctx.newPromise());
    connection.flush();
    closeIfDrained();
  }

  /** After a stream closed: a draining connection closes with its last stream. */
  void closeIfDrained() {
    if (draining && connection.connection().numActiveStreams() == 0) {
      ctx.close();
    }
  }

  /**
   * The server turned the connection away: a GOAWAY accepting no stream, so the client's calls on
   * it are retried elsewhere instead of failing with a bare close, then the close.
   */
  void refused() {
    goAwayAndClose(0, Http2Error.REFUSED_STREAM, "connection refused by the server");
  }

  /**
   * The connection reached its maximum age: drained as at shutdown, so its client moves on and no
   * call in flight fails; after the grace (if any) it closes whatever still runs.
   */
  private void aged() {
    if (draining || !ctx.channel().isActive()) {
      return;
    }
    startDrain(
        TetherEvent.Kind.CONNECTION_AGED,
        "connection reached its maximum age: GOAWAY, then a PING before the last stream id");
    long grace = host.connectionAgeGrace().toNanos();
    if (grace > 0) {
      onLoopAfter(grace, ctx::close);
    }
  }

  /**
   * Nothing read and no call run for the server's reader idle: a GOAWAY naming the last stream
   * (none runs, so the client loses nothing and opens a new connection for its next call), then the
   * close.
   */
  void idleTooLong() {
    if (draining) {
      return;
    }
    draining = true;
    hosted.emit(
        TetherEvent.Kind.GOAWAY_SENT,
        "client idle for the server's reader idle: GOAWAY, then the close",
        null);
    goAwayAndClose(lastStream(), Http2Error.NO_ERROR, "idle");
  }

  /** The client pinged; when too often, gRPC's answer (gRFC A8) and the connection's end. */
  void pinged(PingPolicy pings) {
    if (pingedOut || !pings.pingReceived(connection.connection().numActiveStreams() > 0)) {
      return;
    }
    pingedOut = true;
    hosted.emit(
        TetherEvent.Kind.GOAWAY_SENT,
        "the client pings more often than permitted: GOAWAY ENHANCE_YOUR_CALM too_many_pings",
        null);
    goAwayAndClose(lastStream(), Http2Error.ENHANCE_YOUR_CALM, TOO_MANY_PINGS);
  }

  private int lastStream() {
    return connection.connection().remote().lastStreamCreated();
  }

  /** A GOAWAY that says why in its debug data, then the close once it is written. */
  private void goAwayAndClose(int lastStreamId, Http2Error error, String why) {
    ByteBuf debug = Unpooled.copiedBuffer(why, StandardCharsets.US_ASCII);
    connection
        .goAway(ctx, lastStreamId, error.code(), debug, ctx.newPromise())
        .addListener(sent -> ctx.close());
    connection.flush();
  }

  /** Runs {@code task} on the connection's loop after {@code nanos} of the server's clock. */
  private void onLoopAfter(long nanos, Runnable task) {
    Scheduler.Cancellable timer =
        host.scheduler().schedule(() -> ctx.executor().execute(task), nanos);
    ctx.channel().closeFuture().addListener(closed -> timer.cancel());
  }
}
