package dev.tether.client;

import dev.tether.Endpoint;
import dev.tether.EndpointSelection;
import dev.tether.InvocationMode;
import dev.tether.NoEndpointException;
import dev.tether.Resolver;
import dev.tether.spi.ClientWireProtocol;
import dev.tether.transport.Transport;
import dev.tether.transport.TransportSet;
import io.netty.util.NetUtil;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Derives the ordered list of endpoints a proxy may connect to, in the five steps of endpoint
 * selection: drop unknown or unavailable transports, drop those unfit for the mode, resolve names
 * (one candidate per address), shuffle or keep order, then apply the security rules. An empty
 * result raises {@link NoEndpointException} naming the step that emptied the list.
 */
public final class EndpointSelector {
  /**
   * Bounds the cache below; a runtime that sees more distinct literal endpoints starts it afresh.
   */
  private static final int MAX_CACHED_LITERALS = 4096;

  private final TransportSet transports;
  private final Resolver resolver;
  private final ClientConfig config;
  private final Random random;

  /**
   * Candidates of endpoints that need no name resolution (IP literals, in-JVM): for one runtime
   * they never change, so a proxy that selects per call does not rebuild their socket address.
   */
  private final Map<Endpoint, Candidate> literals = new ConcurrentHashMap<>();

  public EndpointSelector(
      TransportSet transports, Resolver resolver, ClientConfig config, Random random) {
    this.transports = transports;
    this.resolver = resolver;
    this.config = config;
    this.random = random;
  }

  public List<Candidate> select(ProxySettings proxy) {
    List<Endpoint> known = knownTransports(proxy);
    List<Endpoint> fit = fitForMode(known, proxy.mode(), proxy);
    List<Candidate> resolved = resolve(fit, proxy);
    order(resolved, proxy.selection());
    return speaking(applySecurity(resolved, proxy), proxy.wireProtocol());
  }

  /** The candidates as {@code p} reaches them; as they are for Tether's own protocol (null). */
  private static List<Candidate> speaking(List<Candidate> candidates, ClientWireProtocol p) {
    if (p == null) {
      return candidates;
    }
    List<Candidate> out = new ArrayList<>(candidates.size());
    for (Candidate c : candidates) {
      out.add(c.speaking(p));
    }
    return out;
  }

  private List<Endpoint> knownTransports(ProxySettings proxy) {
    List<Endpoint> out = new ArrayList<>();
    for (Endpoint e : proxy.endpoints()) {
      if (transports.find(e.transport()) != null) {
        out.add(e);
      }
    }
    if (out.isEmpty()) {
      throw new NoEndpointException(
          "no usable endpoint in "
              + describe(proxy)
              + ": step 1 dropped every endpoint (unknown transport, or ssl without TLS configured)");
    }
    return out;
  }

  private static List<Endpoint> fitForMode(
      List<Endpoint> endpoints, InvocationMode mode, ProxySettings proxy) {
    List<Endpoint> out = new ArrayList<>();
    for (Endpoint e : endpoints) {
      if (e.isDatagram() == mode.isDatagram()) {
        out.add(e);
      }
    }
    if (out.isEmpty()) {
      throw new NoEndpointException(
          "no usable endpoint in "
              + describe(proxy)
              + ": step 2 dropped every endpoint ("
              + (mode.isDatagram()
                  ? "only datagram endpoints fit mode "
                  : "datagram endpoints do not fit mode ")
              + mode
              + ")");
    }
    return out;
  }

  private List<Candidate> resolve(List<Endpoint> endpoints, ProxySettings proxy) {
    List<Candidate> out = new ArrayList<>();
    UnknownHostException lastFailure = null;
    for (Endpoint e : endpoints) {
      Candidate literal = literals.get(e);
      if (literal != null) {
        out.add(literal);
        continue;
      }
      Transport t = transports.find(e.transport());
      if (t.name().equals("local")
          || NetUtil.isValidIpV4Address(e.host())
          || NetUtil.isValidIpV6Address(e.host())) {
        out.add(rememberLiteral(candidate(e, t)));
        continue;
      }
      try {
        for (InetAddress a : resolver.resolve(e.host())) {
          // The address keeps the name dialled: TLS checks the server's certificate against it.
          InetAddress named = InetAddress.getByAddress(e.host(), a.getAddress());
          out.add(
              candidate(e.withHost(a.getHostAddress()), t, new InetSocketAddress(named, e.port())));
        }
      } catch (UnknownHostException ex) {
        lastFailure = ex;
      }
    }
    if (out.isEmpty()) {
      NoEndpointException ex =
          new NoEndpointException(
              "no usable endpoint in "
                  + describe(proxy)
                  + ": step 3 resolved no address"
                  + (lastFailure == null ? "" : " (" + lastFailure.getMessage() + ")"));
      if (lastFailure != null) {
        ex.initCause(lastFailure);
      }
      throw ex;
    }
    return out;
  }

  private Candidate rememberLiteral(Candidate c) {
    if (literals.size() >= MAX_CACHED_LITERALS) {
      literals.clear();
    }
    literals.put(c.endpoint(), c);
    return c;
  }

  private Candidate candidate(Endpoint e, Transport t) {
    return candidate(e, t, t.address(e.host(), e.port()));
  }

  private Candidate candidate(Endpoint e, Transport t, SocketAddress address) {
    Duration timeout = config.overrideTimeout() != null ? config.overrideTimeout() : e.timeout();
    Duration connectTimeout =
        config.overrideConnectTimeout() != null ? config.overrideConnectTimeout() : timeout;
    return new Candidate(e, t, address, timeout, connectTimeout);
  }

  private void order(List<Candidate> candidates, EndpointSelection selection) {
    if (selection == EndpointSelection.RANDOM) {
      Collections.shuffle(candidates, random);
    }
  }

  private List<Candidate> applySecurity(List<Candidate> candidates, ProxySettings proxy) {
    if (config.overrideSecure() || proxy.secure()) {
      List<Candidate> secure = new ArrayList<>();
      for (Candidate c : candidates) {
        if (c.transport().isSecure()) {
          secure.add(c);
        }
      }
      if (secure.isEmpty()) {
        throw new NoEndpointException(
            "no usable endpoint in "
                + describe(proxy)
                + ": step 5 kept only secure endpoints ("
                + (config.overrideSecure() ? "tether.override.secure" : "proxy is secure")
                + ") and there are none");
      }
      return secure;
    }
    boolean secureFirst = proxy.preferSecure();
    List<Candidate> first = new ArrayList<>();
    List<Candidate> second = new ArrayList<>();
    for (Candidate c : candidates) {
      (c.transport().isSecure() == secureFirst ? first : second).add(c);
    }
    first.addAll(second);
    return first;
  }

  private static String describe(ProxySettings proxy) {
    return "proxy " + proxy.identity() + " " + proxy.endpoints();
  }
}
