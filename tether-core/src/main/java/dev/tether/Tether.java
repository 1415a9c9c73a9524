package dev.tether;

import dev.tether.client.ClientConfig;
import dev.tether.client.ClientRuntime;
import dev.tether.client.ProxySettings;
import dev.tether.client.RequestChannel;
import dev.tether.cluster.EpsilonGreedySettings;
import dev.tether.cluster.NodeGroups;
import dev.tether.codec.JacksonCodec;
import dev.tether.internal.SerialExecutor;
import dev.tether.observe.TetherListener;
import dev.tether.observe.TetherStatus;
import dev.tether.spi.Codec;
import dev.tether.spi.Discovery;
import dev.tether.transport.TlsContexts;
import dev.tether.transport.TlsWatch;
import java.util.List;
import java.util.Objects;
import java.util.Properties;

/**
 * The client runtime: owns event loops, resolver and connection cache. One per application is the
 * norm; it is thread-safe. {@link #close()} closes every connection and frees the threads.
 */
public final class Tether implements AutoCloseable {
  private final ClientRuntime runtime;
  private final Codec codec;

  /** Null without TLS. */
  private final TlsConfig tls;

  /** Null unless the builder asked to watch the TLS files. */
  private final TlsWatch tlsWatch;

  private Tether(Builder b) {
    this.codec = b.codec;
    this.tls = b.tls;
    Properties settings = b.properties.effective();
    this.runtime =
        new ClientRuntime(
            ClientConfig.from(settings),
            b.resolver,
            b.tls == null ? null : TlsContexts.forClient(b.tls),
            b.ticker,
            b.scheduler,
            b.random,
            new NodeGroups(EpsilonGreedySettings.from(settings)),
            b.listeners,
            b.clientInterceptor);
    if (b.tlsWatch != null) {
      tlsWatch =
          new TlsWatch(
              tls.pemFiles(),
              this::reloadTls,
              runtime.scheduler(),
              new SerialExecutor(),
              b.tlsWatch.toNanos());
      tlsWatch.start();
    } else {
      tlsWatch = null;
    }
  }

  /** A runtime with defaults and {@code -Dtether.*} system properties. */
  public static Tether create() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * The default codec of typed proxies and services: Jackson Smile, with byte[] values raw. Both
   * builders use it unless given another.
   */
  public static Codec standardCodec() {
    return new JacksonCodec();
  }

  /** A proxy for a string in proxy grammar, e.g. {@code "echo:tcp -h 127.0.0.1 -p 7000"}. */
  public Proxy proxy(String proxyString) {
    ParsedProxy parsed = ProxyGrammar.parseProxy(proxyString);
    return new Proxy(
        this,
        ProxySettings.of(parsed.identity(), parsed.mode(), parsed.secure(), parsed.endpoints()));
  }

  /**
   * A proxy whose endpoints come from {@code discovery}: nodes it adds or removes are used or
   * dropped without recreating the proxy.
   */
  public Proxy proxy(String identity, Discovery discovery) {
    ProxySettings settings =
        ProxySettings.of(identity, InvocationMode.TWOWAY, false, List.of())
            .with(c -> c.source(discovery));
    return new Proxy(this, settings);
  }

  /**
   * A fresh snapshot of the connection {@code earlier} was taken of: its state and calls in flight
   * now. Once this runtime no longer holds it (it closed), the answer is {@code earlier} in state
   * CLOSED with nothing in flight. Cheap enough to poll.
   */
  public Connection connection(Connection earlier) {
    RequestChannel now = runtime.connectionNumbered(earlier.id());
    if (now != null) {
      return now.snapshot();
    }
    return new Connection(
        earlier.id(),
        earlier.endpoint(),
        earlier.remoteAddress(),
        earlier.transport(),
        earlier.connectionId(),
        earlier.timeout(),
        earlier.isSecure(),
        ConnectionState.CLOSED,
        0);
  }

  /** A snapshot of this runtime's connections, nodes and retry counters; cheap enough to poll. */
  public TetherStatus status() {
    return runtime.status();
  }

  /**
   * Builds a new TLS context from the same configuration (PEM files are read again) and uses it for
   * connections opened from now on; open connections go on with theirs. A configuration that no
   * longer builds (a key that is not its certificate's, say) throws {@link
   * IllegalArgumentException}, logs a WARN, emits {@code TLS_RELOAD_REFUSED} and leaves the current
   * one in force; a reload that works emits {@code TLS_RELOADED}.
   *
   * @throws IllegalStateException when this runtime has no TLS configured
   */
  public void reloadTls() {
    if (tls == null) {
      throw new IllegalStateException(
          "this Tether has no TLS configured (Tether.builder().tls(...))");
    }
    TlsReload.run(() -> TlsContexts.forClient(tls), runtime::reloadTls, "client", runtime.events());
  }

  /**
   * Adds a listener while the runtime runs, beside the builder's {@code listener(l)} (so a status
   * page can be wired to a runtime that already exists): it receives the events emitted from now
   * on, in order, on the runtime's event thread. Safe from any thread.
   */
  public void addListener(TetherListener l) {
    runtime.events().add(l);
  }

  /**
   * Removes {@code l} (one registration of that instance): events emitted from now on skip it;
   * those emitted before may still reach it, in order, just after this returns. Returns false when
   * it was not registered.
   */
  public boolean removeListener(TetherListener l) {
    return runtime.events().remove(l);
  }

  ClientRuntime runtime() {
    return runtime;
  }

  Codec codec() {
    return codec;
  }

  /**
   * Drains, then frees threads: no new calls, pending calls get their answers (at most {@code
   * tether.close.grace}, 10 s), then every connection closes and the event loops stop.
   */
  @Override
  public void close() {
    if (tlsWatch != null) {
      tlsWatch.stop();
    }
    runtime.shutdown().syncUninterruptibly();
  }

  /** Settings for a {@link Tether}; properties given here win over system properties. */
  public static final class Builder extends RuntimeBuilder<Builder> {
    private Resolver resolver = Resolver.system();

    /** Null unless clientInterceptor was called. */
    private ClientInterceptor clientInterceptor;

    private Builder() {}

    @Override
    Builder self() {
      return this;
    }

    public Builder resolver(Resolver r) {
      resolver = Objects.requireNonNull(r);
      return this;
    }

    /**
     * Sees each call of this runtime: its start, every attempt (where the interceptor may add
     * headers, e.g. a trace context) and its end. One per runtime; without one a call costs nothing
     * more. The server's counterpart is {@link TetherServer.Builder#interceptor}.
     *
     * @throws IllegalStateException when one is already set
     */
    public Builder clientInterceptor(ClientInterceptor i) {
      if (clientInterceptor != null) {
        throw new IllegalStateException(
            "this builder already has a client interceptor: " + clientInterceptor);
      }
      clientInterceptor = Objects.requireNonNull(i);
      return this;
    }

    /**
     * @throws IllegalArgumentException when watchTls was asked for without PEM files to watch
     */
    public Tether build() {
      if (tlsWatch != null && (tls == null || tls.pemFiles().isEmpty())) {
        throw new IllegalArgumentException(
            "watchTls needs a TLS config read from PEM files: " + tls);
      }
      return new Tether(this);
    }
  }
}
