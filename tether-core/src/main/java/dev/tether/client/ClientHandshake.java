package dev.tether.client;

import dev.tether.ConnectFailedException;
import dev.tether.ConnectTimeoutException;
import dev.tether.TetherException;
import dev.tether.protocol.BodyCompression;
import dev.tether.protocol.FrameWriter;
import dev.tether.protocol.GoAway;
import dev.tether.protocol.Hello;
import dev.tether.protocol.Welcome;
import dev.tether.spi.Scheduler;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import java.time.Duration;

/**
 * The client's half of the handshake: the preface and HELLO it opens with, the time the server has
 * to answer with WELCOME, and what a failed opening is called (connect timeout, refused, or
 * failed). Confined to the connection's event loop; the timer runs on the runtime's scheduler.
 */
final class ClientHandshake {
  /** What a handshake settled, for events; null before WELCOME. */
  static String summary(Welcome w) {
    return w == null
        ? null
        : "handshake done with server " + w.serverId() + " version " + w.serverVersion();
  }

  /** What the handshake asks of its connection. */
  interface Owner {
    /** True while the connection still waits for WELCOME. */
    boolean isHandshaking();

    /** The server did not answer HELLO in time: the opening fails with {@code cause}. */
    void onHandshakeFailed(TetherException cause);
  }

  private final ConnectionHost host;
  private final Candidate candidate;
  private final Owner owner;

  /** Non-null only while the connection waits for WELCOME with a limit on how long. */
  private Scheduler.Cancellable timeout;

  ClientHandshake(ConnectionHost host, Candidate candidate, Owner owner) {
    this.host = host;
    this.candidate = candidate;
    this.owner = owner;
  }

  /** The channel is active: the preface and HELLO go out, pipelined before any request. */
  void sayHello(ChannelHandlerContext ctx, BodyCompression compression) {
    ByteBuf opening = ctx.alloc().ioBuffer(64);
    FrameWriter.writePreface(opening, compression.capabilities());
    FrameWriter.encode(new Hello(host.clientId(), host.maxFrameSize()), opening);
    ctx.writeAndFlush(opening, ctx.voidPromise());
  }

  /** The transport connected (on the loop): WELCOME must now arrive within the limit. */
  void startClock(Channel channel) {
    long limitNanos = limit().toNanos();
    if (limitNanos > 0 && owner.isHandshaking()) {
      timeout = host.scheduleOn(channel.eventLoop(), this::onTimeout, limitNanos);
    }
  }

  /** WELCOME arrived or the connection closed: the clock stops. */
  void stopClock() {
    if (timeout != null) {
      timeout.cancel();
      timeout = null;
    }
  }

  private void onTimeout() {
    timeout = null;
    if (owner.isHandshaking()) {
      owner.onHandshakeFailed(
          new ConnectTimeoutException(
              "no handshake from "
                  + candidate.endpoint()
                  + " within "
                  + limit().toMillis()
                  + " ms"));
    }
  }

  /**
   * How long the server may take to answer HELLO: the endpoint's connect timeout, or without one
   * {@code tether.connection.handshakeTimeout}, so a peer that accepts and then says nothing
   * (frozen, overloaded) cannot hold a connection attempt, and the calls waiting for it, forever.
   */
  private Duration limit() {
    Duration connectTimeout = candidate.connectTimeout();
    return connectTimeout != null ? connectTimeout : host.config().connections().handshakeTimeout();
  }

  /** A GOAWAY instead of WELCOME: the server is full, or does not speak this version. */
  ConnectFailedException refusedBy(GoAway g) {
    return new ConnectFailedException(
        candidate.endpoint()
            + " refused the connection with GOAWAY("
            + g.reason()
            + "): "
            + g.message());
  }

  /** What the callers waiting for this connection are told when it closed before WELCOME. */
  TetherException connectFailure(Throwable cause) {
    if (cause instanceof ConnectTimeoutException cte) {
      return cte;
    }
    if (cause instanceof ConnectFailedException cfe) {
      return cfe;
    }
    if (cause instanceof io.netty.channel.ConnectTimeoutException) {
      // The transport's message names the limit it applied: the endpoint's, or its own default
      // when the endpoint sets none (so this must not read the endpoint's, which may be absent).
      return new ConnectTimeoutException(
          "connect to " + candidate.endpoint() + " " + cause.getMessage(), cause);
    }
    return new ConnectFailedException(
        "cannot connect to " + candidate.endpoint() + ": " + cause, cause);
  }
}
