package dev.tether.client;

import dev.tether.ConnectionState;
import dev.tether.TetherException;
import dev.tether.observe.TetherEvent;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.util.concurrent.Future;

/**
 * What every connection over a stream transport does the same whatever protocol it speaks: the
 * transport connect, why it closes, the graceful drain that closes once nothing is carried, and the
 * lanes of its key. Subclasses frame the calls (Tether's own protocol, or another through a {@code
 * ClientWireProtocol}) and decide what a close does to what they carried.
 */
abstract class StreamConnection extends BaseConnection implements Lane {
  /** Why the channel closes; the loop's. */
  protected final CloseCause closing = new CloseCause();

  /**
   * This key's connections (this one and its extras) while it has extras, else null: callers spread
   * new calls over them. Published by {@link ExtraConnections}.
   */
  protected volatile Lane[] lanes;

  /** Set before connect by {@link ExtraConnections}; read on the loop after. */
  private boolean extra;

  StreamConnection(ConnectionHost host, ConnectionKey key, Candidate candidate) {
    super(host, key, candidate);
  }

  /** Starts the transport connect; {@link #onTransportConnected()} follows once it is up. */
  @Override
  public final void connect() {
    emit(TetherEvent.Kind.CONNECTING, "opening " + candidate.address(), null);
    ChannelFuture f =
        candidate.transport().connect(candidate.address(), candidate.connectTimeout(), pipeline());
    // The pipeline may already have run on the event loop; a transport that connects at once
    // (local) may have had the server's first answer arrive before connect() returned.
    channel = f.channel();
    f.addListener(
        done -> {
          if (!done.isSuccess()) {
            closing.failedBecause(done.cause());
            onClosed();
          } else {
            onTransportConnected();
          }
        });
  }

  /** What the channel's pipeline is set up with. */
  protected abstract ChannelHandler pipeline();

  /** The transport connected (on the loop): the protocol's opening starts. */
  abstract void onTransportConnected();

  /** The channel closed or never opened (on the loop): decide, then end what it carried. */
  abstract void onClosed();

  /** Whether no call and no stream is carried or waiting here. */
  protected abstract boolean carriesNothing();

  /**
   * Drops the call (on the loop): frees its slot and tells the peer it need not answer; false when
   * it was not carried here (answered meanwhile, or never written).
   */
  protected abstract boolean forget(CallAttempt call);

  @Override
  public void abandon(CallAttempt call) {
    onLoop(() -> forget(call));
  }

  @Override
  public void timeOutAttempt(CallAttempt call, int attempt) {
    onLoop(
        () -> {
          if (call.attemptNumber() == attempt && forget(call)) {
            call.onAttemptTimedOut();
          }
        });
  }

  /** The client's own drain began (on the loop); by default nothing more to do. */
  protected void onDrainStarted() {}

  /** The opening failed (the handshake's owner hears it here): close with that cause. */
  public void onHandshakeFailed(TetherException cause) {
    closing.failedBecause(cause);
    channel.close();
  }

  /** Closes a draining connection once it carries nothing. */
  void closeIfDrained() {
    if (state == ConnectionState.DRAINING && carriesNothing()) {
      closing.closedOnPurpose();
      channel.close();
    }
  }

  /** The client's own graceful close: no new calls, close once every call is answered. */
  @Override
  public Future<?> drain() {
    if (channel == null) {
      return close();
    }
    onLoop(
        () -> {
          closing.closedOnPurpose();
          if (state == ConnectionState.CONNECTING) {
            channel.close();
            return;
          }
          transitionTo(ConnectionState.DRAINING, null, null);
          onDrainStarted();
          closeIfDrained();
        });
    return channel.closeFuture();
  }

  @Override
  protected void onCloseRequested() {
    closing.closedOnPurpose();
  }

  @Override
  public boolean isUsable() {
    ConnectionState s = state;
    // The channel check covers the moment between a close and its channelInactive event.
    return s == ConnectionState.CONNECTING || (s == ConnectionState.ACTIVE && channel.isActive());
  }

  /** This connection was opened beside its key's own, under load; before {@link #connect()}. */
  @Override
  public void markExtra() {
    extra = true;
  }

  @Override
  public boolean isExtra() {
    return extra;
  }

  /**
   * Spreads new calls over {@code all} (this key's connections), or over this one alone when null.
   */
  @Override
  public void spreadOver(Lane[] all) {
    lanes = all;
  }
}
