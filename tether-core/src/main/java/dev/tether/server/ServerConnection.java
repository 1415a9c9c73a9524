package dev.tether.server;

import dev.tether.protocol.Batch;
import dev.tether.protocol.FrameCodec;
import dev.tether.protocol.GoAway;
import dev.tether.protocol.GoAwayReason;
import dev.tether.protocol.Hello;
import dev.tether.protocol.Ping;
import dev.tether.protocol.Pong;
import dev.tether.protocol.Request;
import dev.tether.protocol.Response;
import dev.tether.protocol.Status;
import dev.tether.protocol.Welcome;
import dev.tether.protocol.WriteBatcher;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server end of one stream connection: answers the handshake, hands requests to the
 * dispatcher, writes responses in batches, and drains on graceful shutdown. Its state changes on
 * the channel's event loop only.
 */
final class ServerConnection extends ChannelInboundHandlerAdapter implements Responder {
  private static final Logger log = LoggerFactory.getLogger("dev.tether.trace.connection");

  /** The life of a server connection. */
  enum State {
    /** Waiting for HELLO. */
    HANDSHAKING,
    /** Serving requests. */
    ACTIVE,
    /** GOAWAY sent: finishing accepted requests, refusing new ones. */
    DRAINING,
    /** Closed; terminal. */
    CLOSED
  }

  private final ServerRuntime server;
  private final Channel channel;
  private final ResponseWriter writer;
  private State state = State.HANDSHAKING;
  private int highestAcceptedId;
  /** Accepted requests not yet answered (twoway) or finished (oneway). */
  private int inFlight;
  /** Requests answered (twoway) or finished (oneway) on this connection. */
  private long served;

  ServerConnection(ServerRuntime server, Channel channel) {
    this.server = server;
    this.channel = channel;
    this.writer = new ResponseWriter(channel);
  }

  Channel channel() {
    return channel;
  }

  /** Accepted requests not finished yet; read on the loop. */
  int inFlight() {
    return inFlight;
  }

  /** Requests finished on this connection; read on the loop. */
  long served() {
    return served;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof Request r) {
      handleRequest(r);
    } else if (msg instanceof Batch b) {
      for (Request r : b.requests()) {
        handleRequest(r);
      }
    } else if (msg instanceof Hello) {
      handleHello(ctx);
    } else if (msg instanceof Ping p) {
      ctx.writeAndFlush(new Pong(p.data()), ctx.voidPromise());
    } else if (msg instanceof GoAway) {
      ctx.close();
    }
  }

  private void handleHello(ChannelHandlerContext ctx) {
    Welcome welcome = server.welcome();
    ByteBuf out = ctx.alloc().ioBuffer(128);
    FrameCodec.writePreface(out);
    FrameCodec.encode(welcome, out);
    ctx.writeAndFlush(out, ctx.voidPromise());
    transitionTo(State.ACTIVE, null);
  }

  /** Every state change goes through here, on the loop, and emits its event. */
  private void transitionTo(State next, String why) {
    State previous = state;
    if (previous == State.CLOSED || previous == next) {
      return;
    }
    state = next;
    switch (next) {
      case ACTIVE -> server.emit(dev.tether.observe.TetherEvent.Kind.ACCEPTED, channel, "client handshake done", null);
      case DRAINING -> server.emit(dev.tether.observe.TetherEvent.Kind.GOAWAY_SENT, channel, why, null);
      case CLOSED -> server.connectionClosed(this, served);
      default -> { }
    }
  }

  private void handleRequest(Request r) {
    if (state == State.DRAINING) {
      // Above the last accepted id: the client already knows this one did not run.
      if (!r.isOneway()) {
        respond(new Response(r.requestId(), Status.REFUSED, Map.of(), new byte[0]));
        inFlight++;
      }
      return;
    }
    if (Integer.compareUnsigned(r.requestId(), highestAcceptedId) > 0) {
      highestAcceptedId = r.requestId();
    }
    inFlight++;
    server.dispatcher().dispatch(r, channel.remoteAddress(), this);
  }

  @Override
  public void respond(Response response) {
    writer.enqueue(response);
  }

  @Override
  public void onewayDone() {
    if (channel.eventLoop().inEventLoop()) {
      requestFinished();
      return;
    }
    try {
      channel.eventLoop().execute(this::requestFinished);
    } catch (java.util.concurrent.RejectedExecutionException loopStopped) {
      // The server closed while the oneway call ran; there is nothing left to account for.
    }
  }

  private void requestFinished() {
    inFlight--;
    served++;
    if (state == State.DRAINING && inFlight == 0) {
      server.connectionDrained(this);
    }
  }

  /** Graceful shutdown, step one: tell the client which requests will still be answered. */
  void beginDrain() {
    channel.eventLoop().execute(() -> {
      if (state == State.CLOSED || state == State.DRAINING) {
        return;
      }
      transitionTo(State.DRAINING, "server is shutting down; last accepted request " + highestAcceptedId);
      channel.writeAndFlush(new GoAway(GoAwayReason.SHUTDOWN, highestAcceptedId, "server is shutting down"));
      if (inFlight == 0) {
        server.connectionDrained(this);
      }
    });
  }

  /** A client silent for the server's reader idle is gone (it would have pinged): close. */
  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof IdleStateEvent e && e.state() == IdleState.READER_IDLE) {
      log.debug("closing {}: silent for the server's reader idle", ctx.channel().remoteAddress());
      transitionTo(State.DRAINING, "client silent for the server's reader idle");
      ctx.writeAndFlush(new GoAway(GoAwayReason.IDLE_TIMEOUT, highestAcceptedId, "client silent too long"))
          .addListener(ChannelFutureListener.CLOSE);
    }
    if (evt instanceof dev.tether.protocol.ProtocolViolation v) {
      server.emit(dev.tether.observe.TetherEvent.Kind.PROTOCOL_ERROR, channel, v.cause().getMessage(), v.cause());
    }
    ctx.fireUserEventTriggered(evt);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    transitionTo(State.CLOSED, null);
    writer.discardQueued();
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    log.debug("server connection from {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
    ctx.close();
  }

  /** Responses from any thread, encoded and flushed in batches on the loop. */
  private final class ResponseWriter extends WriteBatcher<Response> {
    ResponseWriter(Channel channel) {
      super(channel);
    }

    @Override
    protected void encode(Response response, ByteBuf out) {
      FrameCodec.encode(response, out);
      requestFinished();
    }

    @Override
    protected void discard(Response response) {
      // The client is gone; it will learn from the closed connection.
    }
  }
}
