package dev.tether.server;

import dev.tether.observe.TetherEvent;
import dev.tether.internal.IntMap;
import dev.tether.protocol.Batch;
import dev.tether.protocol.BodyCompression;
import dev.tether.protocol.Cancel;
import dev.tether.protocol.FrameCodec;
import dev.tether.protocol.FrameDecoder;
import dev.tether.protocol.GoAway;
import dev.tether.protocol.GoAwayReason;
import dev.tether.protocol.Hello;
import dev.tether.protocol.Ping;
import dev.tether.protocol.Pong;
import dev.tether.protocol.ProtocolVersion;
import dev.tether.protocol.ProtocolViolation;
import dev.tether.protocol.Request;
import dev.tether.protocol.Response;
import dev.tether.protocol.Status;
import dev.tether.protocol.TopologyUpdate;
import dev.tether.protocol.Welcome;
import dev.tether.protocol.WriteBatcher;
import dev.tether.spi.Scheduler;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server end of one stream connection: answers the handshake, hands requests to the
 * dispatcher within the connection's in-flight limit, writes responses in batches, tells the
 * client of a changed cluster view, stops reading while the client leaves replies unread, and
 * drains on graceful shutdown. Its state and both of
 * its timers (the handshake deadline, the reader-idle check) live on the channel's event loop: the
 * host's scheduler only keeps time, and every timer task hops onto the loop before it looks at
 * anything.
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
    /**
     * Turned away before the handshake (the server is at its maxConnections): HELLO is answered
     * with GOAWAY, then the connection waits for the client to close, at most the handshake
     * deadline.
     */
    REFUSED,
    /** Closed; terminal. */
    CLOSED
  }

  /**
   * What a connection needs from the server around it: dispatch, the WELCOME to send, the clock,
   * the limits, and where its events and its end are reported.
   */
  interface Host {
    Dispatcher dispatcher();

    Welcome welcome();

    ServerClock clock();

    /** Close a connection that has read nothing for this long; 0 never does. */
    long readerIdleNanos();

    /** Close a connection that has not sent HELLO this long after it opened (TLS included). */
    long handshakeTimeoutNanos();

    /** Reports a server event about {@code channel}; called on the loop. */
    void emit(TetherEvent.Kind kind, Channel channel, String detail, Throwable cause);

    /** The connection closed after finishing {@code served} requests; called on the loop once. */
    void connectionClosed(ServerConnection connection, long served);
  }

  private final Host server;
  private final Channel channel;
  private final ResponseWriter writer;
  /** What the client's preface announced, and the zstd state replies are compressed with. */
  private final BodyCompression compression;
  private State state = State.HANDSHAKING;
  /** False until the channel is active and the timers run; set once, on the loop. */
  private boolean timersStarted;
  /** Non-null only while HANDSHAKING with a deadline set. */
  private Scheduler.Cancellable handshakeDeadline;
  /** Non-null while a reader-idle check is scheduled. */
  private Scheduler.Cancellable readerIdleCheck;
  /** When the connection last read bytes, on the host's ticker. */
  private long lastReadNanos;
  /** The client's chain as TLS verified it; set when the TLS handshake succeeds, empty otherwise. */
  private List<X509Certificate> verifiedChain = List.of();
  /** Who the client is; non-null from HELLO on (requests before HELLO are protocol errors). */
  private Peer peer;
  private int highestAcceptedId;
  /** Accepted requests not yet answered (twoway) or finished (oneway). */
  private int inFlight;
  /** Requests answered (twoway) or finished (oneway) on this connection. */
  private long served;
  /**
   * The accepted twoway requests whose answer is not written yet, by request id: the ServiceCall
   * while one waits for or runs on an executor (so CANCEL can stop it), else the Request. An
   * answer whose id is no longer here was cancelled, and is dropped instead of written.
   */
  private final IntMap<Object> unanswered = new IntMap<>();
  /** This connection's own queue in SERIALIZED mode; null in the other modes. */
  private final SerialLane lane;
  /** True when this read burst queued calls on the shared run queue that no worker was woken for yet. */
  private boolean queuedCallsToStart;
  /** How many requests may be in flight before new ones are refused; WELCOME's figure, set at HELLO. */
  private int maxInFlight = Integer.MAX_VALUE;
  /** The minor protocol version of the client's preface; set at HELLO. */
  private int clientMinorVersion;
  /** The cluster view this client was last told, in WELCOME or TOPOLOGY; non-null from HELLO on. */
  private TopologyUpdate announcedTopology;
  /**
   * True from {@link #awaitAdmission()} until the server counted this connection in or turned it
   * away: nothing is read meanwhile, and what TLS reads on its own is held in {@link #beforeAdmission}.
   */
  private boolean awaitingAdmission;
  /** Non-null only while awaiting admission once a frame arrived; replayed when the server decided. */
  private List<Object> beforeAdmission;
  /** Non-null only when REFUSED: why, for the GOAWAY that answers HELLO. */
  private String refusal;

  ServerConnection(Host server, Channel channel, BodyCompression compression) {
    this.server = server;
    this.channel = channel;
    this.compression = compression;
    this.writer = new ResponseWriter(channel);
    this.lane = server.dispatcher().newLane();
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
    lastReadNanos = server.clock().nanoTime();
    long handshake = server.handshakeTimeoutNanos();
    if (handshake > 0) {
      handshakeDeadline = server.clock().schedule(channel, this::handshakeDeadlinePassed, handshake);
    }
    if (server.readerIdleNanos() > 0) {
      readerIdleCheck = server.clock().schedule(channel, this::checkReaderIdle, server.readerIdleNanos());
    }
  }

  /** A peer that never finishes the handshake (TLS or HELLO) holds a socket for nothing. */
  private void handshakeDeadlinePassed() {
    handshakeDeadline = null;
    if (state == State.HANDSHAKING || state == State.REFUSED) {
      log.debug("closing {}: {} within the server's handshake timeout", channel.remoteAddress(),
          state == State.HANDSHAKING ? "no HELLO" : "a refused client did not close");
      channel.close();
    }
  }

  /**
   * A client silent for the server's reader idle is gone (it would have pinged): GOAWAY and close.
   * Otherwise the next check is due when the quiet time since the last read reaches the limit.
   */
  private void checkReaderIdle() {
    readerIdleCheck = null;
    if (state == State.CLOSED) {
      return;
    }
    long limit = server.readerIdleNanos();
    long quiet = server.clock().nanoTime() - lastReadNanos;
    if (quiet < limit) {
      readerIdleCheck = server.clock().schedule(channel, this::checkReaderIdle, limit - quiet);
      return;
    }
    log.debug("closing {}: silent for the server's reader idle", channel.remoteAddress());
    transitionTo(State.DRAINING, "client silent for the server's reader idle");
    channel.writeAndFlush(new GoAway(GoAwayReason.IDLE_TIMEOUT, highestAcceptedId, "client silent too long"))
        .addListener(ChannelFutureListener.CLOSE);
  }

  /**
   * Any bytes count as life, a partial frame too; one clock read per read burst, not per frame.
   * The calls the burst queued for the executor start now, with one worker wake-up for them all.
   */
  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    startQueuedCalls();
    lastReadNanos = server.clock().nanoTime();
    ctx.fireChannelReadComplete();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (awaitingAdmission) {
      // Only TLS reads before admission, to finish its handshake; a HELLO in that read waits here.
      if (beforeAdmission == null) {
        beforeAdmission = new ArrayList<>(2);
      }
      beforeAdmission.add(msg);
    } else if (msg instanceof Hello) {
      handleHello(ctx);
    } else if (state == State.REFUSED) {
      // Anything a refused client pipelined after HELLO: its GOAWAY said that none of it runs.
    } else if (msg instanceof Request r) {
      handleRequest(r);
    } else if (msg instanceof Batch b) {
      for (Request r : b.requests()) {
        handleRequest(r);
      }
    } else if (msg instanceof Cancel c) {
      handleCancel(c.requestId());
    } else if (msg instanceof Ping p) {
      ctx.writeAndFlush(new Pong(p.data()), ctx.voidPromise());
    } else if (msg instanceof GoAway) {
      ctx.close();
    }
  }

  private void handleHello(ChannelHandlerContext ctx) {
    FrameDecoder decoder = ctx.pipeline().get(FrameDecoder.class);
    clientMinorVersion = decoder == null ? 0 : decoder.peerMinorVersion();
    if (state == State.REFUSED) {
      answerRefusedHello(ctx);
      return;
    }
    peer = new Peer(channel.remoteAddress(), verifiedChain);
    Welcome welcome = server.welcome();
    maxInFlight = welcome.maxConcurrentRequests();
    announcedTopology = TopologyUpdate.of(welcome);
    ByteBuf out = ctx.alloc().ioBuffer(128);
    FrameCodec.writePreface(out, compression.capabilities());
    FrameCodec.encode(welcome, out);
    ctx.writeAndFlush(out, ctx.voidPromise());
    transitionTo(State.ACTIVE, null);
  }

  /**
   * Preface and GOAWAY instead of WELCOME. A 1.0 client cannot read the TOO_MANY_CONNECTIONS
   * reason, so it is told SHUTDOWN, which also sends it elsewhere; the message says why either way.
   * With no handshake deadline to bound the wait for the client's close, the server closes itself.
   */
  private void answerRefusedHello(ChannelHandlerContext ctx) {
    GoAwayReason reason = clientMinorVersion >= ProtocolVersion.FIRST_MINOR_OF_1_1
        ? GoAwayReason.TOO_MANY_CONNECTIONS : GoAwayReason.SHUTDOWN;
    GoAway goAway = new GoAway(reason, 0, refusal);
    ByteBuf out = ctx.alloc().ioBuffer(16 + FrameCodec.encodedSize(goAway));
    FrameCodec.writePreface(out);
    FrameCodec.encode(goAway, out);
    ChannelFuture written = ctx.writeAndFlush(out);
    if (handshakeDeadline == null) {
      written.addListener(ChannelFutureListener.CLOSE);
    }
  }

  /** Reads nothing until {@link #admit()} or {@link #refuse(String)}; call in the channel's initializer. */
  void awaitAdmission() {
    awaitingAdmission = true;
    channel.config().setAutoRead(false);
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

  /** {@code refusedBecause} null: admitted. Then what arrived meanwhile is handled as if it came now. */
  private void admissionDecided(String refusedBecause) {
    awaitingAdmission = false;
    if (refusedBecause != null) {
      refusal = refusedBecause;
      transitionTo(State.REFUSED, refusedBecause);
    }
    List<Object> held = beforeAdmission;
    beforeAdmission = null;
    if (held != null && state != State.CLOSED) {
      ChannelHandlerContext ctx = channel.pipeline().context(this);
      for (Object msg : held) {
        channelRead(ctx, msg);
      }
      startQueuedCalls();
    }
    updateReading();
  }

  /**
   * Reads only what it can answer: nothing before the server admitted the connection, and no new
   * requests while the channel is not writable (the client leaves replies unread), so a slow
   * reader cannot make the server queue replies without bound. A refused connection reads on.
   */
  private void updateReading() {
    boolean read = state == State.REFUSED || (!awaitingAdmission && channel.isWritable());
    if (channel.config().isAutoRead() != read) {
      log.debug("{} reading from {}", read ? "resuming" : "pausing", channel.remoteAddress());
      channel.config().setAutoRead(read);
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    updateReading();
    ctx.fireChannelWritabilityChanged();
  }

  /** Reading is paused now (for writability or before admission); read on the loop. */
  boolean isReadPaused() {
    return !channel.config().isAutoRead();
  }

  /**
   * The server's cluster view changed: a handshaken 1.1 client is sent TOPOLOGY unless it already
   * has that view (any thread). Reading the view on the loop, after the change, means every
   * connection ends with the latest view whatever the order of changes and handshakes.
   */
  void announceTopology() {
    onLoop(() -> {
      if ((state != State.ACTIVE && state != State.DRAINING)
          || clientMinorVersion < ProtocolVersion.FIRST_MINOR_OF_1_1) {
        return;
      }
      TopologyUpdate now = TopologyUpdate.of(server.welcome());
      if (!now.equals(announcedTopology)) {
        announcedTopology = now;
        channel.writeAndFlush(now, channel.voidPromise());
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
      cancel(handshakeDeadline);
      handshakeDeadline = null;
    }
    switch (next) {
      case ACTIVE -> server.emit(TetherEvent.Kind.ACCEPTED, channel, "client handshake done", null);
      case DRAINING, REFUSED -> server.emit(TetherEvent.Kind.GOAWAY_SENT, channel, why, null);
      case CLOSED -> {
        cancel(readerIdleCheck);
        readerIdleCheck = null;
        server.connectionClosed(this, served);
      }
      default -> { }
    }
  }

  private static void cancel(Scheduler.Cancellable timer) {
    if (timer != null) {
      timer.cancel();
    }
  }

  private void handleRequest(Request r) {
    // First of all: every answer to a twoway request, whatever branch writes it, finds its id here.
    if (!r.isOneway()) {
      unanswered.put(r.requestId(), r);
    }
    if (state == State.DRAINING) {
      // Above the last accepted id: the client already knows this one did not run.
      refuse(r);
      return;
    }
    if (inFlight >= maxInFlight) {
      // The limit WELCOME announced: REFUSED proves to the client that it did not run.
      refuse(r);
      return;
    }
    if (Integer.compareUnsigned(r.requestId(), highestAcceptedId) > 0) {
      highestAcceptedId = r.requestId();
    }
    inFlight++;
    ServiceCall call = server.dispatcher().dispatch(r, peer, this, lane);
    queuedCallsToStart |= call != null && lane == null;
    // A queued call replaces its request, so a CANCEL can stop it. No answer can be encoded before
    // this line: encoding runs on this loop, in a later task.
    if (call != null && !r.isOneway()) {
      unanswered.put(r.requestId(), call);
    }
  }

  /**
   * The client gave up on a request: a queued one never runs, a running one finishes unanswered,
   * and an answer already produced but not yet written is dropped. A CANCEL for a request already
   * answered, or unknown, changes nothing.
   */
  private void handleCancel(int requestId) {
    Object accepted = unanswered.remove(requestId);
    if (accepted instanceof ServiceCall call) {
      call.cancel();
    }
  }

  /**
   * Answers REFUSED without running the request; a oneway request is dropped (nobody waits for
   * an answer). The answer counts as in flight until written, as every answer does.
   */
  private void refuse(Request r) {
    if (r.isOneway()) {
      log.debug("dropping oneway {}.{} from {}: not accepted", r.service(), r.operation(), channel.remoteAddress());
      return;
    }
    inFlight++;
    respond(new Response(r.requestId(), Status.REFUSED, Map.of(), new byte[0]));
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
    } catch (RejectedExecutionException loopStopped) {
      // The server closed while the oneway call ran; there is nothing left to account for.
    }
  }

  private void requestFinished() {
    inFlight--;
    served++;
  }

  /**
   * Graceful shutdown, step one: tell the client which requests will still be answered. The
   * client closes once it has read every answer; closing here could reset the socket over answers
   * still in flight, so the server only closes at its grace deadline.
   */
  void beginDrain() {
    onLoop(this::drain);
  }

  private void drain() {
    if (state != State.ACTIVE && state != State.HANDSHAKING) {
      return;
    }
    transitionTo(State.DRAINING, "server is shutting down; last accepted request " + highestAcceptedId);
    channel.writeAndFlush(new GoAway(GoAwayReason.SHUTDOWN, highestAcceptedId, "server is shutting down"));
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof ProtocolViolation v) {
      server.emit(TetherEvent.Kind.PROTOCOL_ERROR, channel, v.cause().getMessage(), v.cause());
    } else if (evt instanceof SslHandshakeCompletionEvent done && done.isSuccess()) {
      verifiedChain = peerChain(ctx.pipeline().get(SslHandler.class));
    }
    ctx.fireUserEventTriggered(evt);
  }

  /** What the client presented and TLS verified; empty when client authentication asked for none. */
  private static List<X509Certificate> peerChain(SslHandler tls) {
    try {
      List<X509Certificate> chain = new ArrayList<>();
      for (Certificate c : tls.engine().getSession().getPeerCertificates()) {
        if (c instanceof X509Certificate x509) {
          chain.add(x509);
        }
      }
      return List.copyOf(chain);
    } catch (SSLPeerUnverifiedException anonymous) {
      return List.of();
    }
  }

  private void startQueuedCalls() {
    if (queuedCallsToStart) {
      queuedCallsToStart = false;
      server.dispatcher().startQueued();
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    startQueuedCalls(); // a read burst the close cut short: its calls are accounted for when they end
    transitionTo(State.CLOSED, null);
    writer.discardQueued();
    compression.close();
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

    /** Ice's rule: a reply is compressed when its request came compressed and the body is worth it. */
    @Override
    protected void encode(Response response, ByteBuf out) {
      if (unanswered.remove(response.requestId()) == null) {
        requestFinished(); // cancelled: the client no longer waits for it
        return;
      }
      byte[] body = response.body();
      int flags = 0;
      if ((response.flags() & Response.COMPRESSED) != 0) {
        byte[] packed = compression.compressIfWorthIt(body);
        if (packed != null) {
          body = packed;
          flags = Response.COMPRESSED;
        }
      }
      FrameCodec.encodeResponse(response.requestId(), flags, response.status(), response.metadata(), body, out);
      requestFinished();
    }

    @Override
    protected void discard(Response response) {
      // The client is gone; it will learn from the closed connection.
    }
  }
}
