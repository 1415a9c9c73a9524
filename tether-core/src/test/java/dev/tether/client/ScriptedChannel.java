package dev.tether.client;

import dev.tether.ConnectionState;
import dev.tether.Topology;
import dev.tether.observe.ConnectionStatus;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ImmediateEventExecutor;
import io.netty.util.concurrent.Promise;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A connection without a socket for unit tests of what sits above connections (topology views,
 * supervisors, node groups): the test says when it is ready, fails or closes, and which cluster
 * view its server announced. Public so the cluster package's tests can script one too.
 */
public final class ScriptedChannel implements Lane {
  private final ConnectionKey key;
  private final Promise<Void> closed = ImmediateEventExecutor.INSTANCE.newPromise();
  private final CompletableFuture<RequestChannel> ready = new CompletableFuture<>();
  private volatile ConnectionState state = ConnectionState.CONNECTING;
  private volatile Topology topology;
  private volatile boolean drained;
  private volatile boolean extra;

  /** The lane this channel's waiting calls were handed to; null until they are. */
  private volatile Lane handedTo;

  private final long id = NEXT_ID.incrementAndGet();
  private static final java.util.concurrent.atomic.AtomicLong NEXT_ID =
      new java.util.concurrent.atomic.AtomicLong(-1_000_000);

  public ScriptedChannel(ConnectionKey key) {
    this.key = key;
  }

  /** A channel to 127.0.0.1:{@code port} under connection id "". */
  public static ScriptedChannel to(int port) {
    return new ScriptedChannel(
        new ConnectionKey("tcp", new InetSocketAddress("127.0.0.1", port), "", null));
  }

  /** The server answered the handshake, announcing {@code view} (null: none). */
  public ScriptedChannel connects(Topology view) {
    topology = view;
    state = ConnectionState.ACTIVE;
    ready.complete(this);
    return this;
  }

  /** The connect failed with {@code cause}. */
  public void failsToConnect(Throwable cause) {
    state = ConnectionState.CLOSED;
    ready.completeExceptionally(cause);
    closed.trySuccess(null);
  }

  /** The server announced a new view on the open connection. */
  public void announces(Topology view) {
    topology = view;
  }

  public boolean wasDrained() {
    return drained;
  }

  /** The connection this channel's waiting calls were handed to; null until they are. */
  public RequestChannel handedTo() {
    return handedTo;
  }

  @Override
  public void enqueue(CallAttempt call) {
    send(call);
  }

  @Override
  public void handOverBacklog(Lane other) {
    handedTo = other;
  }

  /** Never: a scripted channel said to be saturated has its key open an extra connection. */
  @Override
  public boolean hasRoom() {
    return false;
  }

  @Override
  public void markExtra() {
    extra = true;
  }

  @Override
  public boolean isExtra() {
    return extra;
  }

  @Override
  public void spreadOver(Lane[] all) {}

  @Override
  public Topology topology() {
    return topology;
  }

  @Override
  public void connect() {}

  @Override
  public void send(CallAttempt invocation) {
    throw new UnsupportedOperationException("a scripted channel carries no calls");
  }

  @Override
  public boolean isUsable() {
    ConnectionState s = state;
    return s == ConnectionState.ACTIVE || s == ConnectionState.CONNECTING;
  }

  @Override
  public CompletableFuture<RequestChannel> ready() {
    return ready;
  }

  @Override
  public ConnectionKey key() {
    return key;
  }

  @Override
  public CompletableFuture<ConnectionStatus> status() {
    return new CompletableFuture<>();
  }

  @Override
  public CompletableFuture<Void> sendBatch(List<? extends CallAttempt> calls) {
    throw new UnsupportedOperationException("a scripted channel carries no calls");
  }

  @Override
  public Future<?> drain() {
    drained = true;
    return close();
  }

  @Override
  public Future<?> closeFuture() {
    return closed;
  }

  @Override
  public Future<?> close() {
    state = ConnectionState.CLOSED;
    closed.trySuccess(null);
    return closed;
  }

  @Override
  public SocketAddress remoteAddress() {
    return key.address();
  }

  @Override
  public String connectionId() {
    return key.connectionId();
  }

  @Override
  public Duration timeout() {
    return key.timeout();
  }

  @Override
  public ConnectionState state() {
    return state;
  }

  @Override
  public boolean isSecure() {
    return false;
  }

  @Override
  public String transport() {
    return key.transport();
  }

  @Override
  public long id() {
    return id;
  }

  @Override
  public dev.tether.Connection snapshot() {
    return new dev.tether.Connection(
        id,
        key.address().toString(),
        key.address(),
        key.transport(),
        key.connectionId(),
        key.timeout(),
        false,
        state,
        0);
  }
}
