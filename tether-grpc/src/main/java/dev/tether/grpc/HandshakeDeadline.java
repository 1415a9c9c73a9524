package dev.tether.grpc;

import dev.tether.observe.TetherEvent;
import dev.tether.spi.Scheduler;
import dev.tether.spi.WireProtocol;
import io.netty.channel.ChannelHandlerContext;

/**
 * Closes an HTTP/2 connection whose client has not finished its preface and first SETTINGS within
 * the server's handshake timeout: the preface's first byte chose the protocol, so without this a
 * client that sends one byte would hold a connection for good. State on the event loop.
 */
final class HandshakeDeadline {
  private final ChannelHandlerContext ctx;
  private final WireProtocol.HostedConnection hosted;

  /** Non-null while the timer runs: from {@link #start} until the SETTINGS come. */
  private Scheduler.Cancellable timer;

  /** True once the client's first SETTINGS arrived: its HTTP/2 preface is complete. */
  private boolean settingsRead;

  private HandshakeDeadline(ChannelHandlerContext ctx, WireProtocol.HostedConnection hosted) {
    this.ctx = ctx;
    this.hosted = hosted;
  }

  /** Starts the clock for the channel of {@code ctx}; a timeout of zero means none. */
  static HandshakeDeadline start(
      ChannelHandlerContext ctx, WireProtocol.Host host, WireProtocol.HostedConnection hosted) {
    HandshakeDeadline deadline = new HandshakeDeadline(ctx, hosted);
    long timeout = host.handshakeTimeout().toNanos();
    if (timeout > 0) {
      deadline.timer =
          host.scheduler().schedule(() -> ctx.executor().execute(deadline::expired), timeout);
    }
    return deadline;
  }

  /** The client's SETTINGS arrived. */
  void settingsRead() {
    if (!settingsRead) {
      settingsRead = true;
      if (timer != null) {
        timer.cancel();
        timer = null;
      }
    }
  }

  private void expired() {
    if (!settingsRead && ctx.channel().isActive()) {
      hosted.emit(
          TetherEvent.Kind.PROTOCOL_ERROR,
          "no HTTP/2 preface and SETTINGS within the handshake timeout: closing",
          null);
      ctx.close();
    }
  }
}
