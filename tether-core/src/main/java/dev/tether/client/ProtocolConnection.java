package dev.tether.client;

import dev.tether.CallPhase;
import dev.tether.ConnectionState;
import dev.tether.TetherException;
import dev.tether.observe.ConnectionStatus;
import dev.tether.protocol.Status;
import dev.tether.spi.ClientWireProtocol;
import dev.tether.spi.Scheduler;
import dev.tether.spi.Ticker;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A stream connection that speaks another protocol than Tether's ({@link ClientWireProtocol}, e.g.
 * gRPC over HTTP/2): the runtime's state machine (CONNECTING, ACTIVE, DRAINING, CLOSED, through
 * {@link BaseConnection#transitionTo}), its opening deadline, its calls and what a close does to
 * them stay here, so supervisors, node groups and the at-most-once rule treat it as any other
 * connection; the protocol's link only frames calls and tells each how it ended. Everything happens
 * on the channel's event loop; other threads only hand calls over.
 */
final class ProtocolConnection extends StreamConnection
    implements ClientWireProtocol.Connection, ClientHandshake.Owner {
  private final ClientWireProtocol protocol;
  private final ClientHandshake opening;
  private final CallTally tally = new CallTally();
  private final ConnectionLifetime lifetime;

  /** The calls the link carries, by attempt; the loop's. */
  private final Map<CallAttempt, LinkedCall> calls = new IdentityHashMap<>();

  /** How many calls the link carries; written on the loop, read anywhere for balancing. */
  private volatile int carried;

  /** Non-null once the channel is initialized, which is before it can become active. */
  private ClientWireProtocol.Link link;

  /** Calls waiting for the link's room, never written; the loop's. */
  private final ArrayDeque<CallAttempt> backlog = new ArrayDeque<>();

  /** Whether the link had room when the loop last looked; read anywhere to place calls. */
  private volatile boolean roomy = true;

  ProtocolConnection(ConnectionHost host, ConnectionKey key, Candidate candidate) {
    super(host, key, candidate);
    this.protocol = candidate.protocol();
    this.opening = new ClientHandshake(host, candidate, this);
    this.lifetime = new ConnectionLifetime(this, host, this::closeIdle);
  }

  @Override
  protected ChannelHandler pipeline() {
    return this;
  }

  @Override
  void onTransportConnected() {
    opening.startClock(channel);
  }

  /** The protocol's handlers go in behind this one (and the transport's TLS before it). */
  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    channel = ctx.channel();
    link = protocol.open(ctx.channel(), this);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    onClosed();
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    closing.failedWith(cause);
    ctx.close();
  }

  // ---- what the protocol tells (event loop) ----

  @Override
  public String authority() {
    SocketAddress a = candidate.address();
    if (a instanceof InetSocketAddress inet) {
      return candidate.endpoint().host() + ":" + inet.getPort();
    }
    return String.valueOf(a);
  }

  @Override
  public Ticker ticker() {
    return host.ticker();
  }

  @Override
  public Scheduler.Cancellable schedule(Runnable task, long delayNanos) {
    return host.scheduleOn(channel.eventLoop(), task, delayNanos);
  }

  @Override
  public void onReady(String summary) {
    if (state != ConnectionState.CONNECTING) {
      return;
    }
    opening.stopClock();
    transitionTo(ConnectionState.ACTIVE, summary, null);
    lifetime.start(channel, host.idleCloseNanos(this));
    ready.complete(this);
  }

  @Override
  public void onGoingAway(String why) {
    transitionTo(ConnectionState.DRAINING, why, null);
    closeIfDrained();
  }

  @Override
  public void onFailed(Throwable cause) {
    closing.failedWith(cause);
    channel.close();
  }

  @Override
  public boolean isHandshaking() {
    return state == ConnectionState.CONNECTING;
  }

  // ---- calls ----

  @Override
  public void send(CallAttempt call) {
    Lane[] spread = lanes;
    if (spread != null) {
      RequestChannel.leastLoaded(spread, this).enqueue(call);
    } else {
      enqueue(call);
    }
  }

  @Override
  public void enqueue(CallAttempt call) {
    call.attachedTo(this);
    if (state == ConnectionState.CLOSED || state == ConnectionState.DRAINING) {
      call.onNotSent(new TetherException(this + " is " + state));
      return;
    }
    onLoop(() -> write(call));
  }

  private void write(CallAttempt call) {
    if (isOpen() && (!link.hasRoom() || !backlog.isEmpty())) {
      waitForRoom(call);
      return;
    }
    writeNow(call);
  }

  private boolean isOpen() {
    return state == ConnectionState.ACTIVE && channel.isActive();
  }

  /**
   * Writes {@code call} now: the link has room and no call waits before it (a call taken from the
   * backlog must not be queued behind the backlog again, or {@link #onRoom} would spin forever).
   */
  private void writeNow(CallAttempt call) {
    if (!isOpen()) {
      call.onNotSent(closing.failureOr(this + " is " + state));
      return;
    }
    if (!call.beginWriting()) {
      return; // its deadline or a cancel ended it while it was handed over
    }
    LinkedCall c = new LinkedCall(this, call, call.toRequest());
    calls.put(call, c);
    carried = calls.size();
    lifetime.onBusy(true);
    link.send(c);
  }

  /** The link is full: the call waits unwritten; the first to wait asks for an extra lane. */
  private void waitForRoom(CallAttempt call) {
    call.waitsIn(CallPhase.Kind.WAITING_FOR_SLOT, endpointText());
    backlog.add(call);
    roomy = false;
    if (backlog.size() == 1) {
      host.onSaturated(this);
    }
  }

  @Override
  public void onRoom() {
    while (!backlog.isEmpty() && link.hasRoom()) {
      writeNow(backlog.poll());
    }
    roomy = backlog.isEmpty() && link.hasRoom();
  }

  @Override
  public void handOverBacklog(Lane other) {
    onLoop(
        () -> {
          for (CallAttempt call = backlog.poll(); call != null; call = backlog.poll()) {
            other.enqueue(call);
          }
          roomy = link.hasRoom();
        });
  }

  @Override
  public boolean hasRoom() {
    return isUsable() && roomy;
  }

  /** {@code c} ended (on the loop): it leaves the table; false when it had left already. */
  boolean release(LinkedCall c) {
    if (calls.remove(c.attempt) == null) {
      return false;
    }
    carried = calls.size();
    if (calls.isEmpty() && backlog.isEmpty()) {
      lifetime.onIdle();
    }
    return true;
  }

  void onAnswered(boolean ok) {
    tally.onAnswered(ok ? Status.OK : Status.INTERNAL);
  }

  /** Drops the call and cancels it on the link; false when it was not carried. */
  @Override
  protected boolean forget(CallAttempt call) {
    LinkedCall c = calls.get(call);
    if (c == null || !release(c)) {
      return false;
    }
    c.end();
    link.cancel(c);
    closeIfDrained();
    return true;
  }

  /**
   * The call ended by its deadline or its caller (on the loop): it leaves the link or, while it
   * still waited for room, the backlog, so a drain does not wait out its grace for it.
   */
  @Override
  public void abandon(CallAttempt call) {
    onLoop(
        () -> {
          if (!forget(call) && backlog.remove(call)) {
            roomy = backlog.isEmpty() && link.hasRoom();
            closeIfDrained();
          }
        });
  }

  /** No call for the idle time: close gracefully; false when calls came meanwhile. */
  boolean closeIdle(String reason) {
    if (!calls.isEmpty() || !backlog.isEmpty()) {
      return false;
    }
    closing.closedOnPurpose("closed idle: " + reason);
    drain();
    return true;
  }

  @Override
  protected boolean carriesNothing() {
    return calls.isEmpty() && backlog.isEmpty();
  }

  /** The channel closed or never opened (on the loop): decide, then fail the calls it carried. */
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
    opening.stopClock();
    lifetime.stop();
    if (wasConnecting) {
      ready.completeExceptionally(opening.connectFailure(why));
    }
    for (CallAttempt waiting = backlog.poll(); waiting != null; waiting = backlog.poll()) {
      waiting.onNotSent(why);
    }
    List<LinkedCall> lost = new ArrayList<>(calls.values());
    calls.clear();
    carried = 0;
    tally.onLost(lost.size(), CloseCause.describe(why));
    for (LinkedCall c : lost) {
      c.lose(why);
    }
    host.onConnectionClosed(this, broke, why);
  }

  @Override
  public CompletableFuture<Void> sendBatch(List<? extends CallAttempt> batch) {
    return CompletableFuture.failedFuture(
        new TetherException(
            "batch modes need Tether's own protocol, not " + protocol.name() + ": " + this));
  }

  // ---- the views ----

  @Override
  public int outstandingRequests() {
    return carried + (roomy ? 0 : 1);
  }

  @Override
  protected ConnectionStatus statusOnLoop(long nowNanos) {
    return new ConnectionStatus(
        endpointText(),
        key.connectionId(),
        state,
        calls.size(),
        Duration.ofNanos(nowNanos - createdNanos),
        tally.ok(),
        tally.failed(),
        tally.lastError(),
        0,
        // The protocol as users read it: a keepalive variant is still "grpc" on the page and
        // meters.
        protocol.family());
  }

  @Override
  public String toString() {
    return protocol.name() + " " + super.toString();
  }
}
