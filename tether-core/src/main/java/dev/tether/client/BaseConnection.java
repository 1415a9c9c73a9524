package dev.tether.client;

import dev.tether.Connection;
import dev.tether.ConnectionState;
import dev.tether.observe.ConnectionStatus;
import dev.tether.observe.TetherEvent;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ImmediateEventExecutor;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every client connection shares, stream or datagram: where it goes, under which key, its
 * readiness, and the read-only snapshot users get from {@code proxy.connection()}.
 */
abstract class BaseConnection extends ChannelInboundHandlerAdapter implements RequestChannel {
  private static final Logger log = LoggerFactory.getLogger("dev.tether.trace.connection");

  /** Numbers connections across every runtime of the JVM, as Netty's channel ids do channels. */
  private static final AtomicLong NUMBERS = new AtomicLong();

  private final long id = NUMBERS.incrementAndGet();
  protected final ConnectionHost host;
  protected final ConnectionKey key;
  protected final Candidate candidate;
  protected final CompletableFuture<RequestChannel> ready = new CompletableFuture<>();

  /** Changed on the channel's loop only; volatile because callers on any thread ask isUsable(). */
  protected volatile ConnectionState state = ConnectionState.CONNECTING;

  /**
   * Non-null once {@link #connect()} ran. Volatile: it is set on the connecting thread and also by
   * the channel's initializer on the event loop, which may read it before connect() returns.
   */
  protected volatile Channel channel;

  /** When the connection was made, on the runtime's ticker. */
  protected final long createdNanos;

  /**
   * Set once, by the supervisor, when a replacement took this connection's place; read anywhere.
   */
  private volatile boolean rotated;

  @Override
  public boolean wasRotated() {
    return rotated;
  }

  @Override
  public void markRotated() {
    rotated = true;
  }

  BaseConnection(ConnectionHost host, ConnectionKey key, Candidate candidate) {
    this.createdNanos = host.ticker().nanoTime();
    this.host = host;
    this.key = key;
    this.candidate = candidate;
  }

  /**
   * Runs {@code task} on this connection's loop, which owns its state; dropped when the runtime is
   * closing, since the connection, its pending calls and its loop end with it.
   */
  protected final void onLoop(Runnable task) {
    Channel ch = channel;
    if (ch == null) {
      return;
    }
    try {
      ch.eventLoop().execute(task);
    } catch (RejectedExecutionException loopStopped) {
      // The runtime is closing.
    }
  }

  /** Called when the user or runtime asks for the close, before the channel closes. */
  protected void onCloseRequested() {}

  @Override
  public final CompletableFuture<RequestChannel> ready() {
    return ready;
  }

  @Override
  public final ConnectionKey key() {
    return key;
  }

  @Override
  public final Future<?> closeFuture() {
    return channel.closeFuture();
  }

  @Override
  public final Future<?> close() {
    Channel ch = channel;
    if (ch == null) {
      return ImmediateEventExecutor.INSTANCE.newSucceededFuture(null);
    }
    try {
      // The close is decided on the loop, which owns the connection's state.
      ch.eventLoop()
          .execute(
              () -> {
                onCloseRequested();
                ch.close();
              });
      return ch.closeFuture();
    } catch (RejectedExecutionException loopStopped) {
      return ch.close();
    }
  }

  @Override
  public final long id() {
    return id;
  }

  @Override
  public final Connection snapshot() {
    return new Connection(
        id,
        endpointText(),
        remoteAddress(),
        transport(),
        connectionId(),
        timeout(),
        isSecure(),
        state,
        outstandingRequests());
  }

  @Override
  public final SocketAddress remoteAddress() {
    return candidate.address();
  }

  @Override
  public final String connectionId() {
    return key.connectionId();
  }

  @Override
  public final Duration timeout() {
    return key.timeout();
  }

  /**
   * Every state change of a connection goes through here, on its loop: it refuses to leave CLOSED
   * and emits the event that says what happened; a move to DRAINING without a reason (the client's
   * own drain) is not news. False when nothing changed.
   */
  protected final boolean transitionTo(ConnectionState next, String why, Throwable cause) {
    assert channel == null || channel.eventLoop().inEventLoop()
        : "connection state changed off its loop";
    ConnectionState previous = state;
    if (previous == ConnectionState.CLOSED || previous == next) {
      return false;
    }
    state = next;
    if (host.config().traceConnection()) {
      log.info("{} {} -> {}", this, previous, next);
    }
    if (next != ConnectionState.DRAINING || why != null) {
      emit(eventOf(previous, next), why, cause);
    }
    return true;
  }

  /**
   * Emits {@code kind} for this connection, except a dial's start or outcome on a connection a
   * supervisor owns: the supervisor reports those with its own state, so each dial is told once.
   */
  protected final void emit(TetherEvent.Kind kind, String why, Throwable cause) {
    boolean dial =
        kind == TetherEvent.Kind.CONNECTING
            || kind == TetherEvent.Kind.CONNECTED
            || kind == TetherEvent.Kind.CONNECT_FAILED;
    if (!(dial && host.isSupervisorsOwn(this))) {
      host.events().emit(kind, endpointText(), why, cause);
    }
  }

  /**
   * The event that reports a move from {@code previous} to {@code next}, for stream and datagram
   * connections alike.
   */
  protected static TetherEvent.Kind eventOf(ConnectionState previous, ConnectionState next) {
    return switch (next) {
      case CONNECTING -> TetherEvent.Kind.CONNECTING;
      case ACTIVE -> TetherEvent.Kind.CONNECTED;
      case DRAINING -> TetherEvent.Kind.GOAWAY_RECEIVED;
      case CLOSED ->
          previous == ConnectionState.CONNECTING
              ? TetherEvent.Kind.CONNECT_FAILED
              : TetherEvent.Kind.CONNECTION_CLOSED;
    };
  }

  @Override
  public final ConnectionState state() {
    return state;
  }

  @Override
  public final boolean isSecure() {
    return candidate.transport().isSecure();
  }

  @Override
  public final String transport() {
    return candidate.transport().name();
  }

  /** True once the transport connected (the handshake may still be going on). */
  final boolean transportConnected() {
    Channel ch = channel;
    return ch != null && ch.isActive();
  }

  /** The endpoint in grammar form, as events and status name it. */
  protected final String endpointText() {
    return candidate.endpoint().toString();
  }

  /** This connection's status; runs on its loop, which owns what it reads. */
  protected abstract ConnectionStatus statusOnLoop(long nowNanos);

  @Override
  public final CompletableFuture<ConnectionStatus> status() {
    long now = host.ticker().nanoTime();
    Channel ch = channel;
    if (ch == null || ch.eventLoop().inEventLoop()) {
      return CompletableFuture.completedFuture(statusOnLoop(now));
    }
    CompletableFuture<ConnectionStatus> f = new CompletableFuture<>();
    try {
      ch.eventLoop().execute(() -> f.complete(statusOnLoop(now)));
    } catch (RejectedExecutionException stopped) {
      f.complete(statusOnLoop(now));
    }
    return f;
  }

  @Override
  public String toString() {
    return candidate.endpoint()
        + (key.connectionId().isEmpty() ? "" : " [connection id " + key.connectionId() + "]");
  }
}
