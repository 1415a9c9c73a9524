package dev.tether;

import dev.tether.client.ProxyBinding;
import dev.tether.client.ProxySettings;
import dev.tether.client.RequestChannel;
import dev.tether.codec.TypedStub;
import dev.tether.protocol.Request;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A reference to a remote service: identity, endpoints and call settings. Immutable; every
 * {@code with*} returns a new proxy on the same runtime. The connection is chosen lazily by the
 * first call and cached per proxy (seed 000); {@link #toString()} round-trips through
 * {@link Tether#proxy(String)}.
 *
 * <p>Futures returned by async calls complete on a Tether event loop: callbacks must not block
 * (use the {@code *Async} variants of CompletableFuture to move work elsewhere).
 */
public final class Proxy {
  private static final byte[] EMPTY = new byte[0];

  private final Tether tether;
  private final ProxySettings settings;
  private final ProxyBinding binding = new ProxyBinding();

  Proxy(Tether tether, ProxySettings settings) {
    this.tether = tether;
    this.settings = settings;
  }

  private Proxy with(ProxySettings s) {
    return new Proxy(tether, s);
  }

  public Proxy withConnectionId(String connectionId) {
    return with(settings.withConnectionId(connectionId == null ? "" : connectionId));
  }

  public Proxy withConnectionCached(boolean cached) {
    return with(settings.withConnectionCached(cached));
  }

  public Proxy withEndpointSelection(EndpointSelection selection) {
    return with(settings.withSelection(selection));
  }

  /** Only secure endpoints when true (like Ice's {@code ice_secure}). */
  public Proxy withSecure(boolean secure) {
    return with(settings.withSecure(secure));
  }

  /** Secure endpoints first when true; non-secure first otherwise. */
  public Proxy withPreferSecure(boolean preferSecure) {
    return with(settings.withPreferSecure(preferSecure));
  }

  public Proxy withMode(InvocationMode mode) {
    return with(settings.withMode(mode));
  }

  /** How long a call may wait for its answer; null for no limit. The connection stays open. */
  public Proxy withInvocationTimeout(Duration timeout) {
    return with(settings.withInvocationTimeout(timeout));
  }

  public Proxy withCompression(boolean compress) {
    return with(settings.withCompress(compress));
  }

  /** The same endpoints and settings for another service identity. */
  public Proxy withIdentity(String identity) {
    return with(settings.withIdentity(identity));
  }

  public String identity() {
    return settings.identity();
  }

  public InvocationMode mode() {
    return settings.mode();
  }

  public java.util.List<Endpoint> endpoints() {
    return settings.endpoints();
  }

  public String connectionId() {
    return settings.connectionId();
  }

  /** Calls an operation and waits for its answer; not idempotent. */
  public byte[] invoke(String operation, byte[] payload) {
    return TypedStub.await(invokeAsync(operation, payload));
  }

  public byte[] invoke(String operation, byte[] payload, Idempotency idempotency) {
    return TypedStub.await(invokeAsync(operation, payload, idempotency));
  }

  /** Calls an operation; the future completes with the answer (oneway: once written). */
  public CompletableFuture<byte[]> invokeAsync(String operation, byte[] payload) {
    return send(operation, payload, false);
  }

  public CompletableFuture<byte[]> invokeAsync(String operation, byte[] payload, Idempotency idempotency) {
    return send(operation, payload, idempotency == Idempotency.IDEMPOTENT);
  }

  private CompletableFuture<byte[]> send(String operation, byte[] payload, boolean idempotent) {
    int flags = (idempotent ? Request.IDEMPOTENT : 0)
        | (settings.mode().expectsResponse() ? 0 : Request.ONEWAY);
    return tether.runtime().invoke(settings, binding, operation, payload == null ? EMPTY : payload, flags);
  }

  /** A typed stub: each interface method calls the operation of its name. */
  public <T> T as(Class<T> serviceInterface) {
    return TypedStub.create(serviceInterface, tether.codec(), this::send, toString());
  }

  /** Reaches the server and the service without running service code. Idempotent. */
  public void ping() {
    TypedStub.await(send(Request.PING_OPERATION, EMPTY, true));
  }

  /** Sends the requests this proxy queued in BATCH_ONEWAY or BATCH_DATAGRAM mode. */
  public void flushBatch() {
    tether.runtime().flushBatches(binding);
  }

  /** Opens (or reuses) this proxy's connection now instead of at the first call. */
  public CompletableFuture<Void> connectAsync() {
    return tether.runtime().establish(settings, binding).thenApply(c -> null);
  }

  /** The connection this proxy uses now, establishing it if needed. */
  public Connection connection() {
    RequestChannel cached = binding.usable();
    if (cached != null) {
      return cached;
    }
    return establishNow();
  }

  private Connection establishNow() {
    CompletableFuture<RequestChannel> f = tether.runtime().establish(settings, binding);
    try {
      return f.get();
    } catch (java.util.concurrent.ExecutionException e) {
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
    return new ParsedProxy(settings.identity(), settings.mode(), settings.secure(), settings.endpoints()).toString();
  }
}
