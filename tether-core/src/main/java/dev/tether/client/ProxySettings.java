package dev.tether.client;

import dev.tether.Endpoint;
import dev.tether.EndpointSelection;
import dev.tether.InvocationMode;
import dev.tether.LoadBalancing;
import dev.tether.protocol.Welcome;
import dev.tether.spi.ClientWireProtocol;
import dev.tether.spi.Discovery;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Everything a proxy decides about its calls; immutable, one per proxy. {@link #with(Consumer)}
 * returns a copy with the fields the consumer changed.
 */
public final class ProxySettings {
  private String identity;
  private List<Endpoint> endpoints;

  /** Non-null when the endpoints come from a discovery instead of the fixed list. */
  private Discovery source;

  private InvocationMode mode;
  private boolean secure;
  private boolean preferSecure;
  private String connectionId = "";
  private boolean connectionCached = true;
  private EndpointSelection selection = EndpointSelection.RANDOM;

  /** Null for no limit. */
  private Duration invocationTimeout;

  /** What withCompression chose; null when the endpoints' {@code -z} decides. */
  private Boolean compressChoice;

  /**
   * Whether calls ask for compressed bodies; derived from the two fields above in {@link
   * #derive()}.
   */
  private boolean compress;

  private LoadBalancing loadBalancing = LoadBalancing.PINNED;
  private boolean waitForReady;

  /** Null outside a session. */
  private String session;

  private int maxRerouteRetries = 3;
  private Duration rerouteRetryInterval = Duration.ZERO;

  /** Null when any server version will do. */
  private VersionRange serverVersion;

  /** Null when an attempt may take as long as the invocation timeout allows. */
  private Duration attemptTimeout;

  /** Null when calls are not hedged. */
  private Duration hedgingDelay;

  /** How many attempts a hedged call may have in flight at once, the first included. */
  private int hedgingMaxAttempts = 1;

  /** Sent with every request; empty when none. */
  private Map<String, String> metadata = Map.of();

  /** The wire protocol the proxy's connections speak; null for Tether's own. */
  private ClientWireProtocol wireProtocol;

  private ProxySettings() {}

  public static ProxySettings of(
      String identity, InvocationMode mode, boolean secure, List<Endpoint> endpoints) {
    ProxySettings s = new ProxySettings();
    s.identity = identity;
    s.mode = mode;
    s.secure = secure;
    s.endpoints = List.copyOf(endpoints);
    s.derive();
    return s;
  }

  /**
   * Ice's rule: a proxy's own choice wins; without one, a call asks for compression when one of the
   * proxy's endpoints carries {@code -z} (connections are shared whatever the flag, so the flag
   * belongs to the proxy, not to one connection). Worked out once here, not per call.
   */
  private void derive() {
    boolean anyEndpoint = false;
    for (Endpoint e : endpoints) {
      anyEndpoint |= e.compress();
    }
    compress = compressChoice != null ? compressChoice : anyEndpoint;
  }

  /** The fields a {@link #with} consumer may change. */
  public static final class Changes {
    private final ProxySettings s;

    private Changes(ProxySettings s) {
      this.s = s;
    }

    public Changes identity(String v) {
      s.identity = Objects.requireNonNull(v);
      return this;
    }

    public Changes endpoints(List<Endpoint> v) {
      s.endpoints = List.copyOf(v);
      return this;
    }

    public Changes source(Discovery v) {
      s.source = v;
      return this;
    }

    public Changes mode(InvocationMode v) {
      s.mode = Objects.requireNonNull(v);
      return this;
    }

    public Changes secure(boolean v) {
      s.secure = v;
      return this;
    }

    public Changes preferSecure(boolean v) {
      s.preferSecure = v;
      return this;
    }

    public Changes connectionId(String v) {
      s.connectionId = v == null ? "" : v;
      return this;
    }

    public Changes connectionCached(boolean v) {
      s.connectionCached = v;
      return this;
    }

    public Changes selection(EndpointSelection v) {
      s.selection = Objects.requireNonNull(v);
      return this;
    }

    public Changes invocationTimeout(Duration v) {
      s.invocationTimeout = v;
      return this;
    }

    public Changes compress(boolean v) {
      s.compressChoice = v;
      return this;
    }

    public Changes loadBalancing(LoadBalancing v) {
      s.loadBalancing = Objects.requireNonNull(v);
      return this;
    }

    public Changes waitForReady(boolean v) {
      s.waitForReady = v;
      return this;
    }

    public Changes session(String v) {
      s.session = v;
      return this;
    }

    public Changes maxRerouteRetries(int v) {
      if (v < 0) {
        throw new IllegalArgumentException("maxRerouteRetries must not be negative: " + v);
      }
      s.maxRerouteRetries = v;
      return this;
    }

    public Changes rerouteRetryInterval(Duration v) {
      s.rerouteRetryInterval = Objects.requireNonNull(v);
      return this;
    }

    public Changes serverVersion(VersionRange v) {
      s.serverVersion = v;
      return this;
    }

    public Changes attemptTimeout(Duration v) {
      if (v != null && (v.isNegative() || v.isZero())) {
        throw new IllegalArgumentException("an attempt timeout must be positive: " + v);
      }
      s.attemptTimeout = v;
      return this;
    }

    public Changes hedging(Duration delay, int maxAttempts) {
      if (delay != null && (delay.isNegative() || maxAttempts < 1)) {
        throw new IllegalArgumentException(
            "hedging needs a delay >= 0 and at least one attempt: " + delay + ", " + maxAttempts);
      }
      s.hedgingDelay = delay;
      s.hedgingMaxAttempts = delay == null ? 1 : maxAttempts;
      return this;
    }

    /** The wire protocol of the proxy's connections; null for Tether's own. */
    public Changes wireProtocol(ClientWireProtocol v) {
      s.wireProtocol = v;
      return this;
    }

    /** Adds (or replaces) one header sent with every request. */
    public Changes metadata(String key, String value) {
      Map<String, String> m = new LinkedHashMap<>(s.metadata);
      m.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
      s.metadata = Collections.unmodifiableMap(m);
      return this;
    }
  }

  /** A copy with the changes {@code edit} makes. */
  public ProxySettings with(Consumer<Changes> edit) {
    ProxySettings copy = new ProxySettings();
    copy.identity = identity;
    copy.endpoints = endpoints;
    copy.source = source;
    copy.mode = mode;
    copy.secure = secure;
    copy.preferSecure = preferSecure;
    copy.connectionId = connectionId;
    copy.connectionCached = connectionCached;
    copy.selection = selection;
    copy.attemptTimeout = attemptTimeout;
    copy.hedgingDelay = hedgingDelay;
    copy.hedgingMaxAttempts = hedgingMaxAttempts;
    copy.invocationTimeout = invocationTimeout;
    copy.compressChoice = compressChoice;
    copy.loadBalancing = loadBalancing;
    copy.waitForReady = waitForReady;
    copy.session = session;
    copy.maxRerouteRetries = maxRerouteRetries;
    copy.rerouteRetryInterval = rerouteRetryInterval;
    copy.serverVersion = serverVersion;
    copy.metadata = metadata;
    copy.wireProtocol = wireProtocol;
    edit.accept(new Changes(copy));
    copy.derive();
    return copy;
  }

  public String identity() {
    return identity;
  }

  /** The endpoints now: the discovery's current list when there is one, else the fixed list. */
  public List<Endpoint> endpoints() {
    return source != null ? source.endpoints() : endpoints;
  }

  /** The fixed endpoints the proxy was made with (a discovery proxy may have none). */
  public List<Endpoint> fixedEndpoints() {
    return endpoints;
  }

  public Discovery source() {
    return source;
  }

  public InvocationMode mode() {
    return mode;
  }

  public boolean secure() {
    return secure;
  }

  public boolean preferSecure() {
    return preferSecure;
  }

  public String connectionId() {
    return connectionId;
  }

  public boolean connectionCached() {
    return connectionCached;
  }

  public EndpointSelection selection() {
    return selection;
  }

  public Duration invocationTimeout() {
    return invocationTimeout;
  }

  /** True when calls ask for compressed bodies ({@code -z} on an endpoint, or withCompression). */
  public boolean compress() {
    return compress;
  }

  public LoadBalancing loadBalancing() {
    return loadBalancing;
  }

  public boolean waitForReady() {
    return waitForReady;
  }

  public String session() {
    return session;
  }

  public int maxRerouteRetries() {
    return maxRerouteRetries;
  }

  public Duration rerouteRetryInterval() {
    return rerouteRetryInterval;
  }

  public VersionRange serverVersion() {
    return serverVersion;
  }

  public Duration attemptTimeout() {
    return attemptTimeout;
  }

  public Duration hedgingDelay() {
    return hedgingDelay;
  }

  public int hedgingMaxAttempts() {
    return hedgingMaxAttempts;
  }

  public Map<String, String> metadata() {
    return metadata;
  }

  /** The wire protocol of the proxy's connections; null for Tether's own. */
  public ClientWireProtocol wireProtocol() {
    return wireProtocol;
  }

  // Convenience copies used across the client.

  public ProxySettings withEndpoints(List<Endpoint> v) {
    return with(c -> c.endpoints(v).source(null));
  }

  public ProxySettings withSelection(EndpointSelection v) {
    return with(c -> c.selection(v));
  }

  public ProxySettings withMode(InvocationMode v) {
    return with(c -> c.mode(v));
  }

  public ProxySettings withPreferSecure(boolean v) {
    return with(c -> c.preferSecure(v));
  }

  /**
   * True when the server behind {@code c} satisfies this proxy's version range (or it has none). A
   * connection still in its handshake is not compatible yet: its version is unknown until WELCOME,
   * so a call waits for {@code ready()} and asks again rather than land on an out-of-range server.
   */
  boolean acceptsServerOf(RequestChannel c) {
    if (serverVersion() == null || !(c instanceof ClientConnection cc)) {
      return true;
    }
    Welcome w = cc.welcome();
    return w != null && serverVersion().contains(w.serverVersion());
  }
}
