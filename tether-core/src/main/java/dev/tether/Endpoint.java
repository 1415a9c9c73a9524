package dev.tether;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Where a server listens: transport, host, port, optional transport timeout ({@code -t}) and
 * compression flag ({@code -z}). Immutable; {@link #toString()} prints the grammar form, e.g.
 * {@code tcp -h 127.0.0.1 -p 41234 -t 5000}, which {@link #parse(String)} reads back.
 */
public final class Endpoint {
  /** Transport names this runtime knows. */
  public static final List<String> KNOWN_TRANSPORTS = List.of("tcp", "ssl", "udp", "local");

  private final String transport;
  private final String host;
  private final int port;
  private final Duration timeout;
  private final boolean compress;

  /** Computed on first use; endpoints key the selector's and the pool's maps on every selection. */
  private int hash;

  /**
   * @param timeout the transport timeout, or null for infinite
   */
  public Endpoint(String transport, String host, int port, Duration timeout, boolean compress) {
    this.transport = Objects.requireNonNull(transport, "transport");
    this.host = Objects.requireNonNull(host, "host");
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port out of range: " + port);
    }
    this.port = port;
    this.timeout = timeout;
    this.compress = compress;
  }

  /**
   * Parses one endpoint in grammar form; throws {@link ProxyParseException} naming the position.
   */
  public static Endpoint parse(String text) {
    return ProxyGrammar.parseEndpoint(text);
  }

  /** Parses a ':'-separated endpoint list, as given to a server builder. */
  public static List<Endpoint> parseList(String text) {
    return ProxyGrammar.parseEndpointList(text);
  }

  public String transport() {
    return transport;
  }

  public String host() {
    return host;
  }

  public int port() {
    return port;
  }

  /** The transport timeout ({@code -t}), or null when infinite. */
  public Duration timeout() {
    return timeout;
  }

  public boolean compress() {
    return compress;
  }

  /** True for the ssl transport. */
  public boolean isSecure() {
    return "ssl".equals(transport);
  }

  /** True for the udp transport. */
  public boolean isDatagram() {
    return "udp".equals(transport);
  }

  public Endpoint withHost(String newHost) {
    return new Endpoint(transport, newHost, port, timeout, compress);
  }

  public Endpoint withPort(int newPort) {
    return new Endpoint(transport, host, newPort, timeout, compress);
  }

  public Endpoint withTimeout(Duration newTimeout) {
    return new Endpoint(transport, host, port, newTimeout, compress);
  }

  public Endpoint withCompress(boolean newCompress) {
    return new Endpoint(transport, host, port, timeout, newCompress);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Endpoint e
        && port == e.port
        && compress == e.compress
        && transport.equals(e.transport)
        && host.equals(e.host)
        && Objects.equals(timeout, e.timeout);
  }

  @Override
  public int hashCode() {
    int h = hash;
    if (h == 0) {
      h = Objects.hash(transport, host, port, timeout, compress);
      hash = h;
    }
    return h;
  }

  @Override
  public String toString() {
    return ProxyGrammar.formatEndpoint(this);
  }
}
