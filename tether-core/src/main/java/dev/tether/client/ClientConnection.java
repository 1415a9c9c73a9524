package dev.tether.client;

import dev.tether.ConnectionState;
import dev.tether.TetherException;
import dev.tether.Topology;
import dev.tether.observe.ConnectionStatus;
import dev.tether.observe.TetherEvent;
import dev.tether.protocol.BodyCompression;
import dev.tether.protocol.Request;
import dev.tether.protocol.ResponseSink;
import dev.tether.protocol.Status;
import dev.tether.protocol.Welcome;
import dev.tether.stream.ChannelLink;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * One multiplexed stream connection (tcp, ssl, local) to a server. It owns the state machine
 * (CONNECTING, ACTIVE, DRAINING, CLOSED: every change through {@link #transitionTo}, which emits
 * the event), hears the channel's lifecycle through its {@link ClientPipeline}, and wires the parts
 * that do the work: the {@link ClientHandshake}, the {@link ClientFrameReader} of what the server
 * sends, the {@link PendingCalls} in flight, the {@link CallBacklog} of calls waiting for a slot,
 * the {@link CallBatchWriter}, the {@link ConnectionWatch} over liveness and idling. Everything
 * happens on the channel's event loop; other threads only enqueue calls.
 */
public final class ClientConnection extends StreamConnection
    implements BatchCarrier, ClientHandshake.Owner, ResponseSink {
  private final PendingCalls pending = new PendingCalls();
  private final CallBacklog backlog = new CallBacklog();
  private final CallTally tally = new CallTally();
  private final AnnouncedTopology topology = new AnnouncedTopology();

  /** The streams this connection carries; its loop's (the frame reader and the watch read it). */
  final ClientStreams streams = new ClientStreams(this);

  private final ClientHandshake handshake;

  /**
   * Body compression of this connection: what the server's preface announced, and the zstd state.
   */
  private final BodyCompression compression;

  /**
   * Non-null once the channel is initialized, which is before it can become active. Set on the
   * loop; volatile because callers enqueue through it from their own threads.
   */
  private volatile CallBatchWriter writer;

  private final ConnectionWatch watch = new ConnectionWatch(this, pending);

  /** Non-null once ACTIVE. */
  private Welcome welcome;

  ClientConnection(ConnectionHost host, ConnectionKey key, Candidate candidate) {
    super(host, key, candidate);
    this.compression = host.config().compression().forConnection();
    this.handshake = new ClientHandshake(host, candidate, this);
  }

  @Override
  protected ChannelHandler pipeline() {
    return initializer();
  }

  /** The pipeline of this connection's channel. */
  ChannelInitializer<Channel> initializer() {
    return new ClientPipeline(
        this, pending, backlog, watch, topology, closing, handshake, compression);
  }

  /** The channel is initialized (on its loop): calls are written through {@code w} from now on. */
  void attach(Channel ch, CallBatchWriter w) {
    channel = ch;
    writer = w;
  }

  /**
   * The transport connected (on the loop): the handshake must now finish within the connect
   * timeout.
   */
  @Override
  void onTransportConnected() {
    handshake.startClock(channel);
  }

  // ---- the state machine (event loop) ----

  @Override
  public boolean isHandshaking() {
    return state == ConnectionState.CONNECTING;
  }

  /**
   * WELCOME, while CONNECTING: the parts that need the server's figures start, and calls may flow.
   */
  void handleWelcome(Welcome w) {
    welcome = w;
    ChannelLink.peerAccepts(channel, w.maxFrameSize());
    handshake.stopClock();
    if (w.maxConcurrentRequests() > 0) {
      writer.limitInFlight(w.maxConcurrentRequests());
    }
    watch.start(
        channel,
        host.config().livenessSettings(key.timeout(), w.heartbeatMillis()),
        host.idleCloseNanos(this));
    transitionTo(ConnectionState.ACTIVE, ClientHandshake.summary(w), null);
    ready.complete(this);
  }

  /**
   * The server is going away (GOAWAY, once ACTIVE): no new calls here; close once the pending ones
   * are answered.
   */
  void startDraining(String why) {
    transitionTo(ConnectionState.DRAINING, why, null);
  }

  /**
   * The channel closed or never opened (on the loop). Decide under the loop, act after: change
   * state, then fail the calls and leave the pool.
   */
  @Override
  void onClosed() {
    if (state == ConnectionState.CLOSED) {
      return;
    }
    boolean wasConnecting = state == ConnectionState.CONNECTING;
    boolean broke = state == ConnectionState.ACTIVE && !closing.isOnPurpose();
    Throwable why = closing.failureOr("connection closed by the server");
    transitionTo(
        ConnectionState.CLOSED,
        closing.isQuiet() ? closing.purpose() : CloseCause.describe(why),
        closing.isQuiet() ? null : why);
    handshake.stopClock();
    watch.stop();
    if (wasConnecting) {
      ready.completeExceptionally(handshake.connectFailure(why));
    }
    if (writer != null) { // null when the channel failed before it was even initialized
      writer.discardQueued();
    }
    compression.close();
    List<CallAttempt> lost = pending.takeAll();
    tally.onLost(lost.size(), CloseCause.describe(why));
    for (CallAttempt inv : lost) {
      inv.onConnectionLost(why);
    }
    backlog.failAll(why);
    streams.connectionLost(why);
    host.onConnectionClosed(this, broke, why);
  }

  // ---- answers (event loop) ----

  /** An answer, straight from the decoder: no frame object on this path. */
  @Override
  public void onResponse(int requestId, Status status, Map<String, String> metadata, byte[] body) {
    watch.onFrameRead();
    CallAttempt inv = pending.take(requestId);
    if (inv != null) {
      tally.onAnswered(status);
      // The slot is free before the caller hears: whoever waits for it, and the idle clock, go
      // first.
      writer.onSlotFreed();
      if ((inv.flags() & Request.STREAM) != 0) { // the stream is here before its items
        streams.answered(inv, requestId, status, body);
      }
      inv.onResponse(status, metadata, body);
    }
    closeIfDrained();
  }

  // ---- what the batch writer asks (event loop) ----

  /** True while calls may be written: before WELCOME (pipelined behind HELLO) and while ACTIVE. */
  boolean takesCalls() {
    return state == ConnectionState.ACTIVE || state == ConnectionState.CONNECTING;
  }

  TetherException whyNotTakingCalls() {
    return new TetherException(this + " is " + state);
  }

  /** Why queued calls could not be written: the close's cause, when known. */
  Throwable whyClosed() {
    return closing.failureOr(this + " closed");
  }

  @Override
  public void onBatchWriting() {
    watch.onWrite();
  }

  /** A write failed: the connection is broken; its calls are decided as it closes. */
  @Override
  public void onWriteFailed(Throwable cause) {
    closing.failedWith(cause);
    channel.close();
  }

  // ---- requests (any thread) ----

  @Override
  public void send(CallAttempt invocation) {
    Lane[] spread = lanes;
    if (spread != null && !invocation.isOneway()) {
      RequestChannel.leastLoaded(spread, this).enqueue(invocation);
    } else {
      enqueue(invocation);
    }
  }

  /** Sends on this connection, whatever its siblings carry. */
  @Override
  public void enqueue(CallAttempt invocation) {
    invocation.attachedTo(this);
    if (state == ConnectionState.CLOSED || state == ConnectionState.DRAINING) {
      invocation.onNotSent(whyNotTakingCalls());
      return;
    }
    writer.enqueue(invocation);
  }

  /**
   * Frees the call's slot and tells the server it need not answer (on the loop); false when it was
   * not waiting.
   */
  @Override
  protected boolean forget(CallAttempt invocation) {
    if (!writer.cancel(
        invocation, state == ConnectionState.ACTIVE || state == ConnectionState.DRAINING)) {
      return false; // answered meanwhile, or never written
    }
    closeIfDrained();
    return true;
  }

  // ---- liveness and idle closing (event loop) ----

  @Override
  public int outstandingRequests() {
    return pending.size() + streams.size();
  }

  /** The liveness rules declared the peer gone: close, failing calls per the retry rules. */
  void onPeerSilent(String reason) {
    emit(TetherEvent.Kind.HEARTBEAT_TIMEOUT, reason, null);
    closing.failedWith(new TetherException(reason + " from " + candidate.endpoint()));
    channel.close();
  }

  /** No call for the idle time (on the loop): close gracefully; the next call opens a new one. */
  void closeIdle(String reason) {
    closing.closedOnPurpose("closed idle: " + reason);
    drain();
  }

  // ---- the proxy's batches ----

  /** The proxy's batch, on the loop, in frames no larger than the server's WELCOME allows. */
  @Override
  public CompletableFuture<Void> sendBatch(List<? extends CallAttempt> calls) {
    return BatchFrames.send(this, channel, calls);
  }

  @Override
  public Throwable whyNotActive() {
    return state == ConnectionState.ACTIVE ? null : closing.failureOr(this + " is " + state);
  }

  // ---- the views ----
  @Override
  protected ConnectionStatus statusOnLoop(long nowNanos) {
    return new ConnectionStatus(
        endpointText(),
        key.connectionId(),
        state,
        pending.size(),
        Duration.ofNanos(nowNanos - createdNanos),
        tally.ok(),
        tally.failed(),
        tally.lastError(),
        streams.size());
  }

  @Override
  public int serverMaxFrameSize() {
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
   * The latest cluster view the server announced (WELCOME's, then TOPOLOGY's), or null; any thread.
   */
  @Override
  public Topology topology() {
    return topology.current();
  }

  /** The server's WELCOME, or null before the handshake completed. */
  public Welcome welcome() {
    return welcome;
  }

  // ---- lanes: calls beyond the server's limit, on extra connections of the same key ----
  /** Moves every backlogged call to {@code other} (any thread); they were never sent here. */
  @Override
  public void handOverBacklog(Lane other) {
    channel.eventLoop().execute(() -> writer.handOverBacklog(other));
  }

  /** True while another call fits in the server's limit; a racy read, for placing calls. */
  @Override
  public boolean hasRoom() {
    CallBatchWriter w = writer;
    return isUsable() && w != null && w.hasFreeSlot();
  }

  @Override
  protected boolean carriesNothing() {
    return pending.isEmpty() && streams.isEmpty();
  }

  /** Streams move on to another connection or end. */
  @Override
  protected void onDrainStarted() {
    streams.leave("the client drained its connection");
  }
}
