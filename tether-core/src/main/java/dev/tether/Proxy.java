package dev.tether;

import dev.tether.client.ProxyBinding;
import dev.tether.client.ProxySettings;
import dev.tether.client.RequestChannel;
import dev.tether.client.VersionRange;
import dev.tether.codec.RemoteCall;
import dev.tether.codec.TypedStub;
import dev.tether.protocol.Request;
import dev.tether.spi.ClientWireProtocol;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.function.Function;

/**
 * A reference to a remote service: identity, endpoints and call settings. Immutable; every {@code
 * with*} returns a new proxy on the same runtime. The connection is chosen lazily by the first call
 * and cached per proxy (the connection-reuse rules of docs/architecture.md); {@link #toString()}
 * round-trips through {@link Tether#proxy(String)}.
 *
 * <p>Futures returned by async calls complete on a Tether event loop: callbacks must not block (use
 * the {@code *Async} variants of CompletableFuture to move work elsewhere).
 */
public final class Proxy {
  private static final byte[] EMPTY = new byte[0];

  private final Tether tether;
  private final ProxySettings settings;
  private final ProxyBinding binding;

  Proxy(Tether tether, ProxySettings settings) {
    this.tether = tether;
    this.settings = settings;
    this.binding = tether.runtime().bind(settings);
  }

  private Proxy with(ProxySettings s) {
    return new Proxy(tether, s);
  }

  public Proxy withConnectionId(String connectionId) {
    return with(settings.with(c -> c.connectionId(connectionId)));
  }

  public Proxy withConnectionCached(boolean cached) {
    return with(settings.with(c -> c.connectionCached(cached)));
  }

  public Proxy withEndpointSelection(EndpointSelection selection) {
    return with(settings.with(c -> c.selection(selection)));
  }

  /** Only secure endpoints when true (like Ice's {@code ice_secure}). */
  public Proxy withSecure(boolean secure) {
    return with(settings.with(c -> c.secure(secure)));
  }

  /** Secure endpoints first when true; non-secure first otherwise. */
  public Proxy withPreferSecure(boolean preferSecure) {
    return with(settings.with(c -> c.preferSecure(preferSecure)));
  }

  public Proxy withMode(InvocationMode mode) {
    return with(settings.with(c -> c.mode(mode)));
  }

  /** How long a call may wait for its answer; null for no limit. The connection stays open. */
  public Proxy withInvocationTimeout(Duration timeout) {
    return with(settings.with(c -> c.invocationTimeout(timeout)));
  }

  public Proxy withCompression(boolean compress) {
    return with(settings.with(c -> c.compress(compress)));
  }

  /** How calls spread over the proxy's nodes; PINNED (one cached connection) by default. */
  public Proxy withLoadBalancing(LoadBalancing strategy) {
    return with(settings.with(c -> c.loadBalancing(strategy)));
  }

  /**
   * When every node is dead, wait (up to the invocation timeout) for one to return instead of
   * failing at once.
   */
  public Proxy withWaitForReady(boolean wait) {
    return with(settings.with(c -> c.waitForReady(wait)));
  }

  /**
   * Binds calls to one connection, because the server keeps state for the session there. If that
   * connection is lost and replaced, the session's next call fails with {@link
   * SessionLostException}.
   */
  public Proxy withSession(String name) {
    return with(settings.with(c -> c.session(name)));
  }

  /** Under a cluster view: how many more rounds over primary and alternates after the first (3). */
  public Proxy withMaxRerouteRetries(int retries) {
    return with(settings.with(c -> c.maxRerouteRetries(retries)));
  }

  /** Under a cluster view: the wait between reroute rounds (none by default). */
  public Proxy withRerouteRetryInterval(Duration interval) {
    return with(settings.with(c -> c.rerouteRetryInterval(interval)));
  }

  /**
   * Bounds each attempt of a call: an attempt without an answer by then is cancelled (CANCEL sent)
   * and, when the call may run again under the at-most-once rule, tried on the next endpoint or
   * node, while the invocation timeout still bounds the whole call. Null for no bound.
   */
  public Proxy withAttemptTimeout(Duration timeout) {
    return with(settings.with(c -> c.attemptTimeout(timeout)));
  }

  /**
   * Sends an idempotent call again to another endpoint or node when no answer came within {@code
   * delay}, up to {@code maxAttempts} attempts at once; the first answer wins and the others are
   * cancelled. Hedges draw on the retry budget; non-idempotent and session calls are never hedged.
   */
  public Proxy withHedging(Duration delay, int maxAttempts) {
    return with(settings.with(c -> c.hedging(delay, maxAttempts)));
  }

  /** Only servers whose version is in {@code range} (e.g. {@code "[2.0,3.0)"}) are used. */
  public Proxy withServerVersion(String range) {
    return with(
        settings.with(c -> c.serverVersion(range == null ? null : VersionRange.parse(range))));
  }

  /**
   * Sends {@code key: value} with every request of the new proxy (a token, a tenant), for the
   * server's interceptors and services to read from {@link CallContext#metadata()}. Adds to, or
   * replaces one of, the headers this proxy already sends.
   */
  public Proxy withMetadata(String key, String value) {
    return with(settings.with(c -> c.metadata(key, value)));
  }

  /**
   * The same proxy whose connections speak {@code protocol} instead of Tether's own (null: Tether's
   * own again). Endpoint selection, connection reuse (the protocol is part of a connection's key),
   * supervision, balancing and the at-most-once rule stay the runtime's.
   */
  public Proxy withWireProtocol(ClientWireProtocol protocol) {
    return with(settings.with(c -> c.wireProtocol(protocol)));
  }

  /**
   * True when this proxy's connection goes to an alternate rather than the cluster's primary (the
   * client-reroute behaviour).
   */
  public boolean alternateWasUsed() {
    return binding.alternateWasUsed();
  }

  /** The same endpoints and settings for another service identity. */
  public Proxy withIdentity(String identity) {
    return with(settings.with(c -> c.identity(identity)));
  }

  public String identity() {
    return settings.identity();
  }

  public InvocationMode mode() {
    return settings.mode();
  }

  public List<Endpoint> endpoints() {
    return settings.endpoints();
  }

  public String connectionId() {
    return settings.connectionId();
  }

  /** The invocation timeout of this proxy's calls; null when they have none. */
  public Duration invocationTimeout() {
    return settings.invocationTimeout();
  }

  /** Calls an operation and waits for its answer; not idempotent. */
  public byte[] invoke(String operation, byte[] payload) {
    return TypedStub.await(invokeAsync(operation, payload));
  }

  public byte[] invoke(String operation, byte[] payload, Idempotency idempotency) {
    return TypedStub.await(invokeAsync(operation, payload, idempotency));
  }

  /**
   * Calls an operation; the future completes with the answer (oneway: once written). Its outcome is
   * the call's own: {@code obtrudeValue} and {@code obtrudeException} throw, and cancelling it
   * cancels the call.
   *
   * <p>Dependent stages ({@code thenApply}, {@code whenComplete}, ...) added before the call ends
   * run on the thread that ends it: usually the connection's event loop, which read the answer or
   * saw the connection break; for a timeout, a retry that gave up or a hedged call, the thread
   * running the runtime's control tasks. Stages added once the future is complete run at once on
   * the thread that adds them. Such a stage must not block; give blocking work an executor with the
   * {@code *Async} variants.
   */
  public CompletableFuture<byte[]> invokeAsync(String operation, byte[] payload) {
    return send(operation, payload, false);
  }

  public CompletableFuture<byte[]> invokeAsync(
      String operation, byte[] payload, Idempotency idempotency) {
    return send(operation, payload, idempotency == Idempotency.IDEMPOTENT);
  }

  private CompletableFuture<byte[]> send(String operation, byte[] payload, boolean idempotent) {
    return tether
        .runtime()
        .invoke(settings, binding, operation, orEmpty(payload), flags(idempotent));
  }

  /**
   * A server stream: each subscription opens one stream of {@code operation}, whose items reach the
   * subscriber as it requests them, in order and each once, across connection losses the runtime
   * can resume (else {@link StreamLostException} says how many were delivered).
   */
  public Flow.Publisher<byte[]> stream(String operation, byte[] request) {
    return stream(operation, request, null);
  }

  /**
   * A bidirectional stream: as {@link #stream(String, byte[])}, and each subscription also sends
   * the items {@code outbound} publishes, as fast as the service asks for them.
   */
  public Flow.Publisher<byte[]> stream(
      String operation, byte[] request, Flow.Publisher<byte[]> outbound) {
    return tether.runtime().stream(binding, operation, orEmpty(request), outbound, 0);
  }

  private static byte[] orEmpty(byte[] payload) {
    return payload == null ? EMPTY : payload;
  }

  private int flags(boolean idempotent) {
    return (idempotent ? Request.IDEMPOTENT : 0)
        | (settings.mode().expectsResponse() ? 0 : Request.ONEWAY);
  }

  /** A typed stub: each interface method calls the operation of its name. */
  public <T> T as(Class<T> serviceInterface) {
    return TypedStub.create(serviceInterface, tether.codec(), new TypedCalls(), toString());
  }

  /** A typed stub's way out: this proxy's calls, the decoding ones completed by the call itself. */
  private final class TypedCalls implements RemoteCall {
    @Override
    public CompletableFuture<byte[]> send(String operation, byte[] body, boolean idempotent) {
      return Proxy.this.send(operation, body, idempotent);
    }

    @Override
    public <T> CompletableFuture<T> send(
        String operation, byte[] body, boolean idempotent, Function<byte[], T> decoder) {
      return tether
          .runtime()
          .invoke(settings, binding, operation, orEmpty(body), flags(idempotent), decoder);
    }

    @Override
    public Flow.Publisher<byte[]> stream(
        String operation, byte[] body, boolean idempotent, Flow.Publisher<byte[]> outbound) {
      return tether.runtime().stream(
          binding, operation, orEmpty(body), outbound, idempotent ? Request.IDEMPOTENT : 0);
    }
  }

  /** Reaches the server and the service without running service code. Idempotent. */
  public void ping() {
    TypedStub.await(send(Request.PING_OPERATION, EMPTY, true));
  }

  /**
   * Sends the requests this proxy queued in BATCH_ONEWAY or BATCH_DATAGRAM mode, and no other
   * proxy's, on the connection its next call would use (opened now if needed); returns once they
   * were written. The queue belongs to the proxy, not to a connection: requests queued before their
   * connection closed are sent on the next one. Requests still queued when the runtime closes are
   * dropped.
   *
   * @throws BatchLostException when some could not be sent (no server reachable, a failed write, a
   *     request larger than the server accepts); {@link BatchLostException#lost()} says how many,
   *     and they are no longer queued
   */
  public void flushBatch() {
    try {
      flushBatchAsync().join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof RuntimeException re ? re : e;
    }
  }

  /**
   * {@link #flushBatch()} without waiting: completes once written, or fails with {@link
   * BatchLostException}.
   */
  public CompletableFuture<Void> flushBatchAsync() {
    return tether.runtime().flushBatch(settings, binding);
  }

  /** Opens (or reuses) this proxy's connection now instead of at the first call. */
  public CompletableFuture<Void> connectAsync() {
    return tether.runtime().connectAsync(settings, binding);
  }

  /**
   * A snapshot of the connection this proxy uses now, establishing it if needed: a read-only value
   * that does not follow the connection afterwards ({@link Tether#connection(Connection)} takes a
   * fresh one).
   */
  public Connection connection() {
    RequestChannel cached = binding.usable();
    return (cached != null ? cached : establishNow()).snapshot();
  }

  private RequestChannel establishNow() {
    CompletableFuture<RequestChannel> f = tether.runtime().establish(settings, binding);
    try {
      return f.get();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException re ? re : new TetherException(e.toString(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new TetherException("interrupted while connecting", e);
    }
  }

  /** Drops the cached connection so the next call selects and resolves endpoints anew. */
  public void resetBinding() {
    binding.forgetAll();
  }

  @Override
  public String toString() {
    return new ParsedProxy(
            settings.identity(), settings.mode(), settings.secure(), settings.endpoints())
        .toString();
  }
}
