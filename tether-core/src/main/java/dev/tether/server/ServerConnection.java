package dev.tether.server;

import dev.tether.observe.TetherEvent;
import dev.tether.protocol.Batch;
import dev.tether.protocol.BodyCompression;
import dev.tether.protocol.Cancel;
import dev.tether.protocol.Frame;
import dev.tether.protocol.GoAway;
import dev.tether.protocol.GoAwayReason;
import dev.tether.protocol.Hello;
import dev.tether.protocol.Ping;
import dev.tether.protocol.Pong;
import dev.tether.protocol.ProtocolViolation;
import dev.tether.protocol.Request;
import dev.tether.protocol.StreamCredit;
import dev.tether.protocol.StreamEnd;
import dev.tether.protocol.StreamItem;
import dev.tether.protocol.TopologyUpdate;
import dev.tether.protocol.Welcome;
import dev.tether.stream.ChannelLink;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server end of one stream connection: its state machine (handshake, serving, draining,
 * refused, closed), its admission by the server, and the routing of inbound frames to its parts:
 * the {@linkplain ServerHandshake handshake}, the {@linkplain InboundCalls inbound calls} (which
 * own the response writer), the {@linkplain ReaderIdleWatch reader-idle enforcement} and the
 * {@linkplain ReadGate read gate}. It drains on graceful shutdown. Everything lives on the
 * channel's event loop: the host's scheduler only keeps time, and every timer task hops onto the
 * loop before it looks at anything.
 */
final class ServerConnection extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger("dev.tether.trace.connection");

  /** The life of a server connection. */
  enum State {
    /** Waiting for HELLO. */
    HANDSHAKING,
    /** Serving requests. */
    ACTIVE,
    /** GOAWAY sent: finishing accepted requests, refusing new ones. */
    DRAINING,
    /**
     * Turned away before the handshake (the server is at its maxConnections): HELLO is answered
     * with GOAWAY, then the connection waits for the client to close, at most the handshake
     * deadline.
     */
    REFUSED,
    /** Closed; terminal. */
    CLOSED
  }

  private final ConnectionHost server;
  private final Channel channel;

  /** What the client's preface announced, and the zstd state replies are compressed with. */
  private final BodyCompression compression;

  private final ServerHandshake handshake;
  private final InboundCalls calls;
  private final ServerStreams streams;
  private final ReaderIdleWatch readerIdle;
  private final ReadGate reading;
  private final AgeWatch age;
  private State state = State.HANDSHAKING;

  /**
   * Meaningful only while DRAINING: the highest request id (unsigned) still served, as the GOAWAY
   * said: the last accepted one for a shutdown, {@link GoAway#UNTIL_FURTHER_NOTICE} while an aged
   * connection waits for its client to move.
   */
  private int servedUpTo;

  /** False until the channel is active and the timers run; set once, on the loop. */
  private boolean timersStarted;

  /** Who the client is; non-null from HELLO on (requests before HELLO are protocol errors). */
  private Peer peer;

  /** Non-null only when REFUSED: why, for the GOAWAY that answers HELLO. */
  private String refusal;

  ServerConnection(ConnectionHost server, Channel channel, BodyCompression compression) {
    this.server = server;
    this.channel = channel;
    this.compression = compression;
    this.handshake = new ServerHandshake(compression);
    this.calls = new InboundCalls(channel, server.dispatcher(), compression);
    this.streams = new ServerStreams(channel, server.streams());
    this.readerIdle =
        new ReaderIdleWatch(
            channel, server.clock(), server.readerIdleNanos(), this::clientWentSilent);
    this.reading = new ReadGate(channel);
    this.age = new AgeWatch(channel, server, this::moveClient, this::ageGraceOver);
  }

  Channel channel() {
    return channel;
  }

  /** Accepted requests not finished yet; read on the loop. */
  int inFlight() {
    return calls.inFlight();
  }

  /** Requests finished on this connection; read on the loop. */
  long served() {
    return calls.served();
  }

  /** Streams on this connection now; read on the loop. */
  int streamCount() {
    return streams.size();
  }

  /** Active at once (an accepted socket, an embedded channel): the timers start now. */
  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    if (ctx.channel().isActive()) {
      startTimers();
    }
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    startTimers();
    ctx.fireChannelActive();
  }

  private void startTimers() {
    if (timersStarted) {
      return;
    }
    timersStarted = true;
    readerIdle.start();
    handshake.startDeadline(
        server.clock(), channel, this::handshakeDeadlinePassed, server.handshakeTimeoutNanos());
  }

  /** A peer that never finishes the handshake (TLS or HELLO) holds a socket for nothing. */
  private void handshakeDeadlinePassed() {
    if (state == State.HANDSHAKING || state == State.REFUSED) {
      log.debug(
          "closing {}: {} within the server's handshake timeout",
          channel.remoteAddress(),
          state == State.HANDSHAKING ? "no HELLO" : "a refused client did not close");
      channel.close();
    }
  }

  /**
   * A client silent for the server's reader idle is gone (it would have pinged): GOAWAY and close.
   */
  private void clientWentSilent() {
    log.debug("closing {}: silent for the server's reader idle", channel.remoteAddress());
    transitionTo(State.DRAINING, "client silent for the server's reader idle");
    channel
        .writeAndFlush(
            new GoAway(
                GoAwayReason.IDLE_TIMEOUT, calls.highestAcceptedId(), "client silent too long"))
        .addListener(ChannelFutureListener.CLOSE);
  }

  /**
   * Any bytes count as life, a partial frame too; one clock read per read burst, not per frame. The
   * calls the burst queued for the executor start now, with at most one worker wake-up for them
   * all.
   */
  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    calls.startQueued();
    readerIdle.readSomething();
    ctx.fireChannelReadComplete();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (reading.holdIfAwaiting(msg)) {
      // Only TLS reads before admission, to finish its handshake; a HELLO in that read waits.
    } else if (msg instanceof Hello h) {
      handleHello(ctx, h);
    } else if (state == State.REFUSED) {
      // Anything a refused client pipelined after HELLO: its GOAWAY said that none of it runs.
    } else if (msg instanceof Request r && r.isStream()) {
      streams.handle(r, peer, serves(r.requestId()));
    } else if (msg instanceof Request r) {
      calls.handle(r, peer, serves(r.requestId()));
    } else if (msg instanceof Batch b) {
      for (Request r : b.requests()) {
        calls.handle(r, peer, serves(r.requestId()));
      }
    } else if (msg instanceof Cancel c) {
      if (!streams.onFrame(c)) {
        calls.cancel(c.requestId());
      }
    } else if (msg instanceof StreamItem
        || msg instanceof StreamCredit
        || msg instanceof StreamEnd) {
      streams.onFrame((Frame) msg);
    } else if (msg instanceof Ping p) {
      ctx.writeAndFlush(new Pong(p.data()), ctx.voidPromise());
    } else if (msg instanceof GoAway) {
      ctx.close();
    }
  }

  /**
   * Everything while ACTIVE; once DRAINING, what the GOAWAY promised: a request above it is
   * refused, and the client already knows it did not run.
   */
  private boolean serves(int requestId) {
    return state != State.DRAINING || Integer.compareUnsigned(requestId, servedUpTo) <= 0;
  }

  private void handleHello(ChannelHandlerContext ctx, Hello hello) {
    if (state == State.REFUSED) {
      handshake.refuse(ctx, refusal);
      return;
    }
    Welcome welcome = server.welcome();
    calls.limitInFlight(welcome.maxConcurrentRequests());
    peer = handshake.welcome(ctx, welcome, hello.clientId());
    ChannelLink.peerAccepts(channel, hello.maxFrameSize());
    transitionTo(State.ACTIVE, null);
    age.start();
  }

  /**
   * The server is no longer its cluster's primary (any thread): the client moves as from an aged
   * connection, so its sessions end and its new calls follow the new primary.
   */
  void noLongerPrimary(String why) {
    onLoop(() -> age.moveNow(why));
  }

  /**
   * The client is told to move to a new connection, and everything it sends until it has moved is
   * still served, so the move refuses no request that was on the wire. A client older than 1.2 is
   * told SHUTDOWN, which it drains the same way. False when not ACTIVE.
   */
  private boolean moveClient(String why) {
    if (state != State.ACTIVE) {
      return false;
    }
    servedUpTo = GoAway.UNTIL_FURTHER_NOTICE;
    transitionTo(State.DRAINING, why);
    channel.writeAndFlush(
        new GoAway(handshake.moveReason(), GoAway.UNTIL_FURTHER_NOTICE, why),
        channel.voidPromise());
    return true;
  }

  /**
   * The grace of an aged connection is over: the last GOAWAY names what was served, and it closes.
   */
  private void ageGraceOver() {
    if (state != State.DRAINING || servedUpTo != GoAway.UNTIL_FURTHER_NOTICE) {
      return;
    }
    servedUpTo = calls.highestAcceptedId();
    channel
        .writeAndFlush(
            new GoAway(handshake.moveReason(), servedUpTo, "max connection age grace is over"))
        .addListener(ChannelFutureListener.CLOSE);
  }

  /**
   * Reads nothing until {@link #admit()} or {@link #refuse(String)}; call in the channel's
   * initializer.
   */
  void awaitAdmission() {
    reading.closeUntilAdmitted();
  }

  /** The server counted this connection in: it may read (any thread). */
  void admit() {
    onLoop(() -> admissionDecided(null));
  }

  /**
   * The server is full: this connection is answered GOAWAY at HELLO and never served (any thread).
   * It reads on, discarding, so that it sees the client close.
   */
  void refuse(String why) {
    onLoop(() -> admissionDecided(why));
  }

  /**
   * {@code refusedBecause} null: admitted. Then what arrived meanwhile is handled as if it came
   * now.
   */
  private void admissionDecided(String refusedBecause) {
    List<Object> held = reading.admissionDecided();
    if (refusedBecause != null) {
      refusal = refusedBecause;
      transitionTo(State.REFUSED, refusedBecause);
    }
    if (!held.isEmpty() && state != State.CLOSED) {
      ChannelHandlerContext ctx = channel.pipeline().context(this);
      for (Object msg : held) {
        channelRead(ctx, msg);
      }
      calls.startQueued();
    }
    updateReading();
  }

  /** Reads only what it can answer; see {@link ReadGate}. */
  private void updateReading() {
    reading.update(state == State.REFUSED);
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    updateReading();
    ChannelLink.writabilityChanged(channel);
    ctx.fireChannelWritabilityChanged();
  }

  /** Reading is paused now (for writability or before admission); read on the loop. */
  boolean isReadPaused() {
    return reading.isPaused();
  }

  /**
   * The server's cluster view changed: a handshaken 1.1 client is sent TOPOLOGY unless it already
   * has that view (any thread). Reading the view on the loop, after the change, means every
   * connection ends with the latest view whatever the order of changes and handshakes.
   */
  void announceTopology() {
    onLoop(
        () -> {
          if (state != State.ACTIVE && state != State.DRAINING) {
            return;
          }
          TopologyUpdate news = handshake.topologyNews(server.welcome());
          if (news != null) {
            channel.writeAndFlush(news, channel.voidPromise());
          }
        });
  }

  /** Runs {@code task} on this connection's loop, unless the loop has stopped with the server. */
  private void onLoop(Runnable task) {
    try {
      channel.eventLoop().execute(task);
    } catch (RejectedExecutionException loopStopped) {
      // The server is closing its loops: the connection is gone with them.
    }
  }

  /** Every state change goes through here, on the loop, and emits its event. */
  private void transitionTo(State next, String why) {
    State previous = state;
    if (previous == State.CLOSED || previous == next) {
      return;
    }
    state = next;
    if (previous == State.HANDSHAKING && next != State.REFUSED) {
      handshake.cancelDeadline();
    }
    switch (next) {
      case ACTIVE -> server.emit(TetherEvent.Kind.ACCEPTED, channel, "client handshake done", null);
      case DRAINING ->
          server.emit(
              servedUpTo == GoAway.UNTIL_FURTHER_NOTICE
                  ? TetherEvent.Kind.CONNECTION_AGED
                  : TetherEvent.Kind.GOAWAY_SENT,
              channel,
              why,
              null);
      case REFUSED -> server.emit(TetherEvent.Kind.GOAWAY_SENT, channel, why, null);
      case CLOSED -> {
        readerIdle.stop();
        age.stop();
        server.connectionClosed(this, calls.served());
      }
      default -> {}
    }
  }

  /**
   * Graceful shutdown, step one: tell the client which requests will still be answered. The client
   * closes once it has read every answer; closing here could reset the socket over answers still in
   * flight, so the server only closes at its grace deadline.
   */
  void beginDrain() {
    onLoop(this::drain);
  }

  private void drain() {
    boolean aged = state == State.DRAINING && servedUpTo == GoAway.UNTIL_FURTHER_NOTICE;
    if (state != State.ACTIVE && state != State.HANDSHAKING && !aged) {
      return;
    }
    // An aged connection still served what its client sent; from now on, only what was accepted.
    int lastAccepted = calls.highestAcceptedId();
    servedUpTo = lastAccepted;
    transitionTo(State.DRAINING, "server is shutting down; last accepted request " + lastAccepted);
    channel.writeAndFlush(
        new GoAway(GoAwayReason.SHUTDOWN, lastAccepted, "server is shutting down"));
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof ProtocolViolation v) {
      server.emit(TetherEvent.Kind.PROTOCOL_ERROR, channel, v.cause().getMessage(), v.cause());
    } else if (evt instanceof SslHandshakeCompletionEvent done && done.isSuccess()) {
      handshake.tlsHandshakeDone(ctx.pipeline().get(SslHandler.class));
    }
    ctx.fireUserEventTriggered(evt);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    // A read burst the close cut short: its calls are accounted for when they end.
    calls.startQueued();
    transitionTo(State.CLOSED, null);
    calls.discardUnwritten();
    streams.connectionClosed();
    compression.close();
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    log.debug(
        "server connection from {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
    ctx.close();
  }
}
