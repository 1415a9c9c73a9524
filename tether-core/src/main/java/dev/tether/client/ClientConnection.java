package dev.tether.client;

import dev.tether.ConnectFailedException;
import dev.tether.ConnectTimeoutException;
import dev.tether.ConnectionState;
import dev.tether.ProtocolException;
import dev.tether.RequestTooLargeException;
import dev.tether.TetherException;
import dev.tether.Topology;
import dev.tether.internal.IntMap;
import dev.tether.observe.ConnectionStatus;
import dev.tether.observe.TetherEvent;
import dev.tether.protocol.BodyCompression;
import dev.tether.protocol.EncodedNames;
import dev.tether.protocol.FrameCodec;
import dev.tether.protocol.FrameDecoder;
import dev.tether.protocol.FrameEncoder;
import dev.tether.protocol.GoAway;
import dev.tether.protocol.GoAwayReason;
import dev.tether.protocol.Hello;
import dev.tether.protocol.Ping;
import dev.tether.protocol.Pong;
import dev.tether.protocol.ProtocolViolation;
import dev.tether.protocol.Response;
import dev.tether.protocol.ResponseSink;
import dev.tether.protocol.Status;
import dev.tether.protocol.TopologyUpdate;
import java.util.Map;
import dev.tether.protocol.Welcome;
import dev.tether.protocol.WriteBatcher;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelProgressiveFuture;
import io.netty.channel.ChannelProgressiveFutureListener;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One multiplexed stream connection (tcp, ssl, local) to a server: it owns the channel, the
 * handshake, the cluster view the server announced, and every call in flight on it, matched by
 * request id. All state changes happen on the channel's event loop; other threads only enqueue
 * requests. While the channel is not writable (the server reads slower than calls are made), calls
 * wait in the queue, not yet written.
 */
public final class ClientConnection extends BaseConnection
    implements LivenessMonitor.Owner, IdleCloser.Owner, ResponseSink {
  private static final Logger log = LoggerFactory.getLogger("dev.tether.trace.connection");

  private final IntMap<Invocation> pending = new IntMap<>();

  /**
   * Non-null once the channel is initialized, which is before it can become active. Set on the
   * loop; volatile because callers enqueue through it from their own threads.
   */
  private volatile RequestWriter writer;
  /** Body compression of this connection: what the server's preface announced, and the zstd state. */
  private final BodyCompression compression;
  /** Non-null once ACTIVE when heartbeats or a transport timeout apply. */
  private LivenessMonitor liveness;
  /** True once the current read burst's time was given to {@link #liveness}. */
  private boolean readTimed;
  /** Non-null only while CONNECTING with a connect timeout. */
  private dev.tether.spi.Scheduler.Cancellable handshakeTimeout;
  /** Non-null once ACTIVE. */
  private Welcome welcome;
  /**
   * The latest cluster view the server announced: WELCOME's, replaced by each TOPOLOGY frame;
   * null while it announced none. Written on the loop; volatile because the runtime reads it from
   * its control executor.
   */
  private volatile Topology topology;
  /** Why the connection closed or is closing; null while healthy. */
  private Throwable closeCause;
  private int nextRequestId = 1;
  // Counters for status snapshots; owned by the loop like the pending map.
  private long callsOk;
  private long callsFailed;
  private String lastError;
  /** True once the close was asked for (drain, GOAWAY, runtime close): no background reconnect then. */
  private boolean closedOnPurpose;
  /** Why a close on purpose happened, when more can be said than that; null otherwise. */
  private String purpose;
  /**
   * How many twoway calls the server takes at once on this connection (WELCOME); plain, written
   * once on the loop at the handshake, read racily by {@link ExtraConnections} to find room.
   */
  private int inFlightLimit = Integer.MAX_VALUE;
  /** Calls that found every slot taken, in arrival order; they wait here, unsent, for a slot or another lane. */
  private final java.util.ArrayDeque<Invocation> backlog = new java.util.ArrayDeque<>(0);
  /** True from the first call backlogged until the backlog empties: the runtime heard of it once. */
  private boolean saturationReported;
  /**
   * This key's connections (this one and its extras) while it has extras, else null: callers
   * spread new calls over them. Published by {@link ExtraConnections}.
   */
  private volatile RequestChannel[] lanes;
  /** Non-null once ACTIVE when connections close after idling. */
  private IdleCloser idle;
  /** Set before connect by {@link ExtraConnections}; read on the loop after. */
  private boolean extra;

  ClientConnection(ClientRuntime runtime, ConnectionKey key, Candidate candidate) {
    super(runtime, key, candidate);
    this.compression = runtime.config().compression().forConnection();
  }

  /** What the handshake settled, for events; null before WELCOME. */
  String handshakeSummary() {
    Welcome w = welcome();
    return w == null ? null : "handshake done with server " + w.serverId() + " version " + w.serverVersion();
  }

  /** Starts the transport connect; the handshake follows once the channel is active. */
  @Override
  public void connect() {
    if (!runtime.isSupervisorsOwn(this)) { // the supervisor reports its own dials
      runtime.events().emit(TetherEvent.Kind.CONNECTING, endpointText(), "opening " + candidate.address(), null);
    }
    ChannelFuture f = candidate.transport().connect(candidate.address(), candidate.connectTimeout(), initializer());
    // The initializer already set both on the event loop; a transport that connects at once (local)
    // may have had the server's WELCOME arrive before connect() returned.
    channel = f.channel();
    f.addListener(done -> {
      if (!done.isSuccess()) {
        onConnectFailed(done.cause());
      } else {
        onTransportConnected();
      }
    });
  }

  /** The pipeline of this connection's channel. */
  ChannelInitializer<Channel> initializer() {
    return new Initializer();
  }

  /** The transport connected (on the loop): the handshake must now finish within the connect timeout. */
  void onTransportConnected() {
    long limitNanos = handshakeLimit().toNanos();
    if (limitNanos > 0 && state == ConnectionState.CONNECTING) {
      handshakeTimeout = runtime.scheduleOn(channel.eventLoop(), this::onHandshakeTimeout, limitNanos);
    }
  }

  /**
   * How long the server may take to answer HELLO: the endpoint's connect timeout, or without one
   * {@code tether.connection.handshakeTimeout}, so a peer that accepts and then says nothing (frozen,
   * overloaded) cannot hold a connection attempt, and the calls waiting for it, forever.
   */
  private java.time.Duration handshakeLimit() {
    java.time.Duration connectTimeout = candidate.connectTimeout();
    return connectTimeout != null ? connectTimeout : runtime.config().connections().handshakeTimeout();
  }

  private final class Initializer extends ChannelInitializer<Channel> {
    @Override
    protected void initChannel(Channel ch) {
      channel = ch;
      writer = new RequestWriter(ch);
      FrameDecoder decoder = new FrameDecoder(FrameDecoder.Side.CLIENT, runtime.maxFrameSize(), compression);
      decoder.setResponseSink(ClientConnection.this);
      ch.pipeline()
          .addLast("frame-decoder", decoder)
          .addLast("frame-encoder", FrameEncoder.INSTANCE)
          .addLast("connection", ClientConnection.this);
    }
  }

  // ---- events from the channel (event loop) ----

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    ByteBuf opening = ctx.alloc().ioBuffer(64);
    FrameCodec.writePreface(opening, compression.capabilities());
    FrameCodec.encode(new Hello(runtime.clientId(), runtime.maxFrameSize()), opening);
    ctx.writeAndFlush(opening, ctx.voidPromise());
    ctx.fireChannelActive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    markRead();
    if (msg instanceof Response r) {
      handleResponse(r);
    } else if (msg instanceof Welcome w) {
      handleWelcome(w);
    } else if (msg instanceof Ping p) {
      ctx.writeAndFlush(new Pong(p.data()), ctx.voidPromise());
    } else if (msg instanceof GoAway g) {
      handleGoAway(g);
    } else if (msg instanceof TopologyUpdate t) {
      handleTopology(t);
    } else if (!(msg instanceof Pong)) {
      closeCause = new ProtocolException("unexpected " + msg.getClass().getSimpleName() + " from the server");
      ctx.close();
    }
  }

  /**
   * Once per read burst rather than per frame: one clock read however many answers arrived, taken
   * at the burst's first frame, before any caller hears of an answer: a read timed at the end of
   * the burst would be later than the callers, and a test's clock, know it to be.
   */
  private void markRead() {
    if (!readTimed && liveness != null) {
      readTimed = true;
      liveness.onRead();
    }
  }

  /** A burst without a whole frame (a large one arriving) still shows the peer is there. */
  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    markRead();
    readTimed = false;
    ctx.fireChannelReadComplete();
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof ProtocolViolation v) {
      closeCause = v.cause();
    }
    ctx.fireUserEventTriggered(evt);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (closeCause == null) {
      closeCause = cause;
    }
    log.debug("{} failed: {}", this, cause.toString());
    ctx.close();
  }

  /** Below the low-water mark again: calls that waited for the unsent bytes to drain go out. */
  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (ctx.channel().isWritable()) {
      for (int n = backlog.size(); n > 0 && pending.size() < inFlightLimit; n--) {
        writer.enqueue(backlog.poll());
      }
      if (backlog.isEmpty()) {
        saturationReported = false;
      }
    }
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    onClosed();
    ctx.fireChannelInactive();
  }

  private void handleWelcome(Welcome w) {
    if (state != ConnectionState.CONNECTING) {
      return;
    }
    if (!learnTopology(w.primary(), w.alternates(), "WELCOME")) {
      return;
    }
    welcome = w;
    cancelHandshakeTimeout();
    LivenessMonitor.Settings rules = runtime.livenessSettings(key.timeout(), w.heartbeatMillis());
    if (!rules.isOff()) {
      liveness = new LivenessMonitor(rules, runtime.ticker(),
          (task, delayNanos) -> runtime.scheduleOn(channel.eventLoop(), task, delayNanos), this);
      liveness.start();
    }
    if (w.maxConcurrentRequests() > 0) {
      inFlightLimit = w.maxConcurrentRequests();
    }
    long idleNanos = runtime.idleCloseNanos(this);
    if (idleNanos > 0) {
      idle = new IdleCloser(idleNanos, runtime.ticker(),
          (task, delayNanos) -> runtime.scheduleOn(channel.eventLoop(), task, delayNanos), this);
      idle.onIdle();
    }
    transitionTo(ConnectionState.ACTIVE, handshakeSummary(), null);
    ready.complete(this);
  }

  /** The server's view changed while connected: keep it, and let the runtime apply it now. */
  private void handleTopology(TopologyUpdate t) {
    if (learnTopology(t.primary(), t.alternates(), "TOPOLOGY")) {
      runtime.onTopologyAnnounced(this);
    }
  }

  /**
   * Replaces the connection's view with the one announced ({@code ""} primary: none) and tells
   * when it changed. A view that is not in endpoint grammar is a protocol error: the connection
   * closes with GOAWAY, and false is returned.
   */
  private boolean learnTopology(String primary, List<String> alternates, String frame) {
    Topology next;
    try {
      next = primary.isEmpty() ? null : Topology.of(primary, alternates);
    } catch (RuntimeException e) {
      failProtocol(new ProtocolException(frame + ": cluster view is not in endpoint grammar: " + e.getMessage()));
      return false;
    }
    if (!java.util.Objects.equals(next, topology)) {
      topology = next;
      runtime.events().emit(TetherEvent.Kind.TOPOLOGY_CHANGED, endpointText(),
          frame + " announced " + (next == null ? "no cluster view" : "primary " + next.primary()
              + ", alternates " + next.alternates()), null);
    }
    return true;
  }

  /** The server broke the protocol in a way only this handler sees: GOAWAY, then close. */
  private void failProtocol(ProtocolException cause) {
    closeCause = cause;
    channel.writeAndFlush(new GoAway(GoAwayReason.PROTOCOL_ERROR, 0, cause.getMessage()))
        .addListener(io.netty.channel.ChannelFutureListener.CLOSE);
  }

  private void handleResponse(Response r) {
    onResponse(r.requestId(), r.status(), r.metadata(), r.body());
  }

  /** An answer, straight from the decoder: no frame object on this path. */
  @Override
  public void onResponse(int requestId, Status status, Map<String, String> metadata, byte[] body) {
    markRead();
    Invocation inv = pending.remove(requestId);
    if (inv != null) {
      if (status == Status.OK) {
        callsOk++;
      } else {
        callsFailed++;
        lastError = status.name();
      }
      // The slot is free before the caller hears: whoever waits for it, and the idle clock, go first.
      onSlotFreed();
      inv.onResponse(status, metadata, body);
    }
    closeIfDrained();
  }

  /** A twoway call left the pending map (on the loop): a backlogged call takes its slot. */
  private void onSlotFreed() {
    Invocation next = backlog.poll();
    while (next != null && next.isFinished()) {
      next = backlog.poll(); // timed out or cancelled while it waited: it takes no slot
    }
    if (next != null) {
      writer.enqueue(next);
    } else {
      saturationReported = false;
      if (idle != null && pending.isEmpty()) {
        idle.onIdle();
      }
    }
  }

  /**
   * Requests above the server's last accepted id never ran: refuse them so they retry elsewhere.
   * A GOAWAY instead of WELCOME (the server is full, or does not speak this version) fails the
   * connect: the caller goes on to the next endpoint.
   */
  private void handleGoAway(GoAway g) {
    boolean handshaking = state == ConnectionState.CONNECTING;
    if (handshaking) {
      closeCause = new ConnectFailedException(candidate.endpoint() + " refused the connection with GOAWAY("
          + g.reason() + "): " + g.message());
    } else if (g.reason() != GoAwayReason.SHUTDOWN && g.reason() != GoAwayReason.IDLE_TIMEOUT) {
      closeCause = new ProtocolException("server sent GOAWAY(" + g.reason() + "): " + g.message());
    }
    if (!handshaking) {
      transitionTo(ConnectionState.DRAINING,
          "GOAWAY(" + g.reason() + ", last accepted " + g.lastAcceptedId() + "): " + g.message(), null);
    }
    List<Invocation> refused = pending.removeKeys(id -> Integer.compareUnsigned(id, g.lastAcceptedId()) > 0);
    for (Invocation inv : refused) {
      inv.onRefused("the server is going away (" + g.reason() + ") and never accepted the request");
    }
    if (handshaking) {
      channel.close(); // still CONNECTING when it closes: the connect fails with closeCause
    } else {
      closeIfDrained();
    }
  }

  private void closeIfDrained() {
    if (state == ConnectionState.DRAINING && pending.isEmpty()) {
      closedOnPurpose = true;
      channel.close();
    }
  }

  /** The client's own graceful close: no new calls, close once every pending call is answered. */
  @Override
  public io.netty.util.concurrent.Future<?> drain() {
    if (channel == null) {
      return close();
    }
    channel.eventLoop().execute(() -> {
      closedOnPurpose = true;
      if (state == ConnectionState.CONNECTING) {
        channel.close();
        return;
      }
      transitionTo(ConnectionState.DRAINING, null, null);
      closeIfDrained();
    });
    return channel.closeFuture();
  }

  private void onConnectFailed(Throwable cause) {
    closeCause = cause;
    onClosed();
  }

  private void onHandshakeTimeout() {
    if (state == ConnectionState.CONNECTING) {
      closeCause = new ConnectTimeoutException(
          "no handshake from " + candidate.endpoint() + " within " + handshakeLimit().toMillis() + " ms");
      channel.close();
    }
  }

  private void cancelHandshakeTimeout() {
    if (handshakeTimeout != null) {
      handshakeTimeout.cancel();
      handshakeTimeout = null;
    }
  }

  /** Decide under the loop, act after: change state, then fail the calls and leave the pool. */
  private void onClosed() {
    if (state == ConnectionState.CLOSED) {
      return;
    }
    boolean wasConnecting = state == ConnectionState.CONNECTING;
    boolean broke = state == ConnectionState.ACTIVE && !closedOnPurpose;
    Throwable why = closeCause != null ? closeCause : new TetherException("connection closed by the server");
    transitionTo(ConnectionState.CLOSED,
        closedOnPurpose && closeCause == null ? (purpose != null ? purpose : "closed on purpose") : message(why),
        closedOnPurpose && closeCause == null ? null : why);
    cancelHandshakeTimeout();
    if (liveness != null) {
      liveness.stop();
    }
    if (idle != null) {
      idle.stop();
    }
    Throwable cause = why;
    if (wasConnecting) {
      ready.completeExceptionally(connectFailure(cause));
    }
    if (writer != null) { // null when the channel failed before it was even initialized
      writer.discardQueued();
    }
    compression.close();
    List<Invocation> lost = pending.removeAll();
    if (!lost.isEmpty()) {
      callsFailed += lost.size();
      lastError = message(cause);
    }
    for (Invocation inv : lost) {
      inv.onConnectionLost(cause);
    }
    failBacklog(cause);
    runtime.onConnectionClosed(this, broke, cause);
  }

  private TetherException connectFailure(Throwable cause) {
    if (cause instanceof ConnectTimeoutException cte) {
      return cte;
    }
    if (cause instanceof ConnectFailedException cfe) {
      return cfe;
    }
    if (cause instanceof io.netty.channel.ConnectTimeoutException) {
      return new ConnectTimeoutException(
          "connect to " + candidate.endpoint() + " timed out after " + candidate.connectTimeout().toMillis() + " ms", cause);
    }
    return new ConnectFailedException("cannot connect to " + candidate.endpoint() + ": " + cause, cause);
  }

  /** Every state change, on the loop; emits the event that says what happened. */
  private void transitionTo(ConnectionState next, String why, Throwable cause) {
    assert channel == null || channel.eventLoop().inEventLoop() : "connection state changed off its loop";
    ConnectionState previous = state;
    if (previous == ConnectionState.CLOSED || previous == next) {
      return;
    }
    state = next;
    if (runtime.config().traceConnection()) {
      log.info("{} {} -> {}", this, previous, next);
    }
    TetherEvent.Kind kind = switch (next) {
      case CONNECTING -> TetherEvent.Kind.CONNECTING;
      case ACTIVE -> TetherEvent.Kind.CONNECTED;
      case DRAINING -> TetherEvent.Kind.GOAWAY_RECEIVED;
      case CLOSED -> previous == ConnectionState.CONNECTING ? TetherEvent.Kind.CONNECT_FAILED : TetherEvent.Kind.CONNECTION_CLOSED;
    };
    boolean dial = kind == TetherEvent.Kind.CONNECTED || kind == TetherEvent.Kind.CONNECT_FAILED;
    if ((next != ConnectionState.DRAINING || why != null) && !(dial && runtime.isSupervisorsOwn(this))) {
      runtime.events().emit(kind, endpointText(), why, cause);
    }
  }

  // ---- requests (any thread) ----

  @Override
  public void send(Invocation invocation) {
    RequestChannel[] spread = lanes;
    if (spread != null && !invocation.isOneway()) {
      ExtraConnections.leastLoaded(spread, this).enqueue(invocation);
    } else {
      enqueue(invocation);
    }
  }

  /** Sends on this connection, whatever its siblings carry. */
  void enqueue(Invocation invocation) {
    invocation.attachedTo(this);
    if (state == ConnectionState.CLOSED || state == ConnectionState.DRAINING) {
      invocation.onNotSent(new TetherException(this + " is " + state));
      return;
    }
    writer.enqueue(invocation);
  }

  @Override
  public void abandon(Invocation invocation) {
    Channel ch = channel;
    if (ch == null) {
      return;
    }
    try {
      ch.eventLoop().execute(() -> forget(invocation));
    } catch (java.util.concurrent.RejectedExecutionException loopStopped) {
      // The runtime is closing: the connection and its pending map go with it.
    }
  }

  @Override
  public void timeOutAttempt(Invocation invocation, int attempt) {
    Channel ch = channel;
    if (ch == null) {
      return;
    }
    try {
      ch.eventLoop().execute(() -> {
        if (invocation.attemptNumber() == attempt && forget(invocation)) {
          invocation.onAttemptTimedOut();
        }
      });
    } catch (java.util.concurrent.RejectedExecutionException loopStopped) {
      // The runtime is closing; the call ends with its connection.
    }
  }

  /** Frees the call's slot and tells the server it need not answer (on the loop); false when it was not waiting. */
  private boolean forget(Invocation invocation) {
    if (pending.get(invocation.requestId) != invocation) {
      return false; // answered meanwhile, or never written
    }
    pending.remove(invocation.requestId);
    if (state == ConnectionState.ACTIVE || state == ConnectionState.DRAINING) {
      channel.writeAndFlush(new dev.tether.protocol.Cancel(invocation.requestId), channel.voidPromise());
    }
    onSlotFreed();
    closeIfDrained();
    return true;
  }

  /** A write failed: the connection is broken; its calls are decided as it closes. */
  void onWriteFailed(Throwable cause) {
    if (closeCause == null) {
      closeCause = cause;
    }
    channel.close();
  }

  @Override
  public int outstandingRequests() {
    return pending.size();
  }

  @Override
  public boolean hasOutstandingRequests() {
    return !pending.isEmpty();
  }

  @Override
  public void sendPing() {
    channel.writeAndFlush(new Ping(runtime.ticker().nanoTime()), channel.voidPromise());
  }

  /** The liveness rules declared the peer gone: close, failing calls per the retry rules. */
  @Override
  public void onPeerSilent(String reason) {
    runtime.events().emit(TetherEvent.Kind.HEARTBEAT_TIMEOUT, endpointText(), reason, null);
    if (closeCause == null) {
      closeCause = new TetherException(reason + " from " + candidate.endpoint());
    }
    channel.close();
  }

  private int nextRequestId() {
    int id = nextRequestId++;
    if (nextRequestId == 0) {
      nextRequestId = 1;
    }
    return id;
  }

  /** Encodes queued calls into one batch per loop turn and learns which of them left whole. */
  private final class RequestWriter extends WriteBatcher<Invocation> {
    /** The calls encoded into the batch being built; the first apart, since most batches hold one. */
    private Invocation first;
    /** The batch's other calls, in {@code more[0 .. moreCount)}; kept and reused from batch to batch. */
    private Invocation[] more = new Invocation[15];
    private int moreCount;
    /** The wire form of the names this connection sends, reused from call to call. */
    private final EncodedNames names = new EncodedNames();

    RequestWriter(Channel channel) {
      super(channel);
    }

    @Override
    protected void encode(Invocation inv, ByteBuf out) {
      if (state != ConnectionState.ACTIVE && state != ConnectionState.CONNECTING) {
        inv.onNotSent(new TetherException(ClientConnection.this + " is " + state));
        return;
      }
      if (!inv.isOneway() && (pending.size() >= inFlightLimit || !channel.isWritable())) {
        backlogCall(inv);
        return;
      }
      if (!inv.beginWriting()) {
        return; // timed out or cancelled while it waited in the queue: never written
      }
      inv.requestId = nextRequestId();
      int start = out.writerIndex();
      inv.encodeRequest(out, compression, names);
      // The limit bounds the length field, which counts all but itself.
      int frameBytes = out.writerIndex() - start - FrameCodec.LENGTH_FIELD_LENGTH;
      if (frameBytes > serverMaxFrameSize()) {
        out.writerIndex(start); // never written: the connection and the other calls go on
        inv.fail(new RequestTooLargeException(inv.describe() + " is a frame of " + frameBytes
            + " bytes, over the " + serverMaxFrameSize() + " bytes " + ClientConnection.this
            + " accepts (its WELCOME); it was not sent"));
        return;
      }
      if (!inv.isOneway()) {
        if (pending.isEmpty() && liveness != null) {
          liveness.onBecameBusy();
        }
        pending.put(inv.requestId, inv);
      }
      if (idle != null) {
        idle.onBusy(!inv.isOneway());
      }
      inv.batchEndOffset = out.writerIndex();
      if (first == null) {
        first = inv;
      } else {
        if (moreCount == more.length) {
          more = Arrays.copyOf(more, more.length * 2);
        }
        more[moreCount++] = inv;
      }
    }

    @Override
    protected void writeBatch(ByteBuf buffer) {
      if (first == null) {
        buffer.release();
        return;
      }
      if (liveness != null) {
        liveness.onWrite();
      }
      if (moreCount == 0) {
        // One call: it is its own write listener, and whole-or-not needs no progress count.
        Invocation only = first;
        first = null;
        channel.write(buffer, channel.newPromise()).addListener(only);
        return;
      }
      // One exact-size array per batch, instead of a growing list and its iterator.
      BatchOutcome outcome = new BatchOutcome(first, Arrays.copyOf(more, moreCount));
      Arrays.fill(more, 0, moreCount, null); // the scratch array must not keep answered calls alive
      first = null;
      moreCount = 0;
      channel.write(buffer, channel.newProgressivePromise()).addListener(outcome);
    }

    @Override
    protected void discard(Invocation inv) {
      inv.onNotSent(closeCause != null ? closeCause : new TetherException(ClientConnection.this + " closed"));
    }
  }

  /**
   * Marks the calls of one written batch as sent. On a failed write, only the calls whose frame
   * ended within the bytes the kernel took count as sent; the rest never reached the server whole.
   */
  private final class BatchOutcome implements ChannelProgressiveFutureListener {
    private final Invocation first;
    /** The batch's other calls: one or more. */
    private final Invocation[] more;
    private long bytesWritten;

    BatchOutcome(Invocation first, Invocation[] more) {
      this.first = first;
      this.more = more;
    }

    @Override
    public void operationProgressed(ChannelProgressiveFuture future, long progress, long total) {
      bytesWritten = progress;
    }

    @Override
    public void operationComplete(ChannelProgressiveFuture future) {
      boolean all = future.isSuccess();
      markIfWritten(first, all);
      for (Invocation inv : more) {
        markIfWritten(inv, all);
      }
      if (!all) {
        onWriteFailed(future.cause());
      }
    }

    private void markIfWritten(Invocation inv, boolean all) {
      if (all || inv.batchEndOffset <= bytesWritten) {
        inv.onSent();
      }
    }
  }

  // ---- the public view ----

  @Override
  public boolean isUsable() {
    ConnectionState s = state;
    // The channel check covers the moment between a close and its channelInactive event.
    return s == ConnectionState.CONNECTING || (s == ConnectionState.ACTIVE && channel.isActive());
  }

  /** The proxy's batch, on the loop, in frames no larger than the server's WELCOME allows. */
  @Override
  public java.util.concurrent.CompletableFuture<Void> sendBatch(List<Invocation> calls) {
    java.util.concurrent.CompletableFuture<Void> done = new java.util.concurrent.CompletableFuture<>();
    try {
      channel.eventLoop().execute(() -> {
        if (state != ConnectionState.ACTIVE) {
          done.completeExceptionally(BatchFrames.lost(calls.size(), calls.size(), this,
              closeCause != null ? closeCause : new TetherException(this + " is " + state)));
          return;
        }
        if (liveness != null) {
          liveness.onWrite();
        }
        BatchFrames.write(channel, this, calls, serverMaxFrameSize()).whenComplete((v, e) -> {
          if (e == null) {
            done.complete(null);
          } else {
            done.completeExceptionally(e);
          }
        });
      });
    } catch (java.util.concurrent.RejectedExecutionException loopStopped) {
      done.completeExceptionally(BatchFrames.lost(calls.size(), calls.size(), this, loopStopped));
    }
    return done;
  }

  @Override
  protected void onCloseRequested() {
    closedOnPurpose = true;
  }

  @Override
  protected ConnectionStatus statusOnLoop(long nowNanos) {
    return new ConnectionStatus(endpointText(), key.connectionId(), state, pending.size(),
        java.time.Duration.ofNanos(nowNanos - createdNanos), callsOk, callsFailed, lastError);
  }

  private static String message(Throwable t) {
    return t.getMessage() != null ? t.getMessage() : t.toString();
  }

  /**
   * The largest frame the server takes, from its WELCOME. Before the WELCOME (a request pipelined
   * behind HELLO) no limit is known yet and the server's decoder decides.
   */
  int serverMaxFrameSize() {
    Welcome w = welcome;
    return w == null ? Integer.MAX_VALUE : w.maxFrameSize();
  }

  @Override
  public boolean isWritable() {
    Channel ch = channel;
    return ch == null || ch.isWritable();
  }

  @Override
  public long bytesBeforeUnwritable() {
    Channel ch = channel;
    return ch == null ? Long.MAX_VALUE : ch.bytesBeforeUnwritable();
  }

  /**
   * The latest cluster view the server announced (WELCOME's, then each TOPOLOGY frame's), or
   * null when it announced none; safe from any thread.
   */
  public Topology topology() {
    return topology;
  }

  /** The server's WELCOME, or null before the handshake completed. */
  public Welcome welcome() {
    return welcome;
  }

  // ---- calls beyond the server's limit (extra connections under load) ----

  /**
   * Every slot the server allows is taken (on the loop): the call waits, unsent, and the runtime
   * hears once per saturation so it can move the backlog to a sibling or open an extra connection.
   */
  private void backlogCall(Invocation inv) {
    backlog.add(inv);
    if (!saturationReported) {
      saturationReported = true;
      runtime.onSaturated(this);
    }
  }

  /** Moves every backlogged call to {@code other} (any thread); they were never sent here. */
  void handOverBacklog(ClientConnection other) {
    channel.eventLoop().execute(() -> {
      for (Invocation inv = backlog.poll(); inv != null; inv = backlog.poll()) {
        other.enqueue(inv);
      }
      saturationReported = false;
    });
  }

  private void failBacklog(Throwable cause) {
    for (Invocation inv = backlog.poll(); inv != null; inv = backlog.poll()) {
      inv.onNotSent(cause instanceof TetherException t ? t : new TetherException(message(cause), cause));
    }
  }

  /** True while another call fits in the server's limit; a racy read, for placing calls. */
  boolean hasRoom() {
    return isUsable() && pending.size() < inFlightLimit && channel.isWritable();
  }

  /** This connection was opened beside its key's own, under load; before {@link #connect()}. */
  void markExtra() {
    extra = true;
  }

  /** True for a connection opened beside its key's own under load. */
  boolean isExtra() {
    return extra;
  }

  /** Spreads new calls over {@code all} (this key's connections), or over this one alone when null. */
  void spreadOver(RequestChannel[] all) {
    lanes = all;
  }

  /** No call for the idle time (on the loop): close gracefully; the next call opens a new one. */
  @Override
  public void closeIdle(String reason) {
    purpose = "closed idle: " + reason;
    drain();
  }

}
