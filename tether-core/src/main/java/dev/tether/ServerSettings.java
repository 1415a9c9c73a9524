package dev.tether;

import dev.tether.internal.VirtualThreads;
import dev.tether.observe.TetherListener;
import dev.tether.server.ServiceHandler;
import dev.tether.spi.Scheduler;
import dev.tether.spi.Ticker;
import dev.tether.spi.WireProtocol;
import dev.tether.transport.TlsContexts;
import io.netty.handler.ssl.SslContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Executor;

/**
 * Everything a built {@link TetherServer} reads, fixed by {@link TetherServer.Builder#build()}: the
 * builder can be changed or built again without touching a server it built. Only the cluster view
 * changes at run time, through {@link TetherServer#setTopology}.
 *
 * @param services the registered services, in registration order
 * @param executor where service code runs; null for the server's own pool
 * @param tls null without ssl endpoints
 * @param tlsWatch how often the PEM files are checked; null when not watched
 * @param threads event-loop threads; 0 lets Netty choose
 * @param topology the view WELCOME carries until {@code setTopology}; null for none
 * @param streamServices the stream services by name (their names may repeat a call service's)
 * @param callObserver sees every execution; null for none
 * @param scheduler what keeps time for the timers; null for the server's own event loops
 * @param random the source of the connection ages' jitter
 * @param wireProtocols the protocols the stream endpoints speak beside Tether's
 */
record ServerSettings(
    List<Endpoint> endpoints,
    Map<String, ServiceHandler> services,
    Map<String, RawStreamService> streamServices,
    Executor executor,
    TlsConfig tls,
    Duration tlsWatch,
    String version,
    int threads,
    int maxFrameSize,
    int maxConcurrentRequests,
    Topology topology,
    List<TetherListener> listeners,
    List<ServerInterceptor> interceptors,
    ServerCallObserver callObserver,
    Ticker ticker,
    Scheduler scheduler,
    Random random,
    ServerProperties properties,
    List<WireProtocol> wireProtocols) {

  /** Checks the settings as a whole, as {@code build()} must: what it throws names the mistake. */
  ServerSettings {
    if (endpoints.isEmpty()) {
      throw new IllegalStateException("a server needs at least one endpoint");
    }
    if (tlsWatch != null && (tls == null || tls.pemFiles().isEmpty())) {
      throw new IllegalArgumentException("watchTls needs a TLS config read from PEM files: " + tls);
    }
    if (properties.executionMode() == ExecutionMode.VIRTUAL_THREADS) {
      // Virtual threads need Java 21, and start their own thread per call.
      VirtualThreads.require(
          "ExecutionMode.VIRTUAL_THREADS (" + ServerProperties.EXECUTION_MODE + ")");
      if (executor != null) {
        throw new IllegalStateException(
            "ExecutionMode.VIRTUAL_THREADS starts a virtual thread per call and takes no"
                + " executor: drop executor(...), or use EXECUTOR to run calls on that"
                + " executor");
      }
    }
    endpoints = List.copyOf(endpoints);
    services = Collections.unmodifiableMap(new LinkedHashMap<>(services));
    streamServices = Map.copyOf(streamServices);
    listeners = List.copyOf(listeners);
    interceptors = List.copyOf(interceptors);
    wireProtocols = List.copyOf(wireProtocols);
  }

  /**
   * Every service name, call and stream services alike, each once, in registration order (calls
   * first).
   */
  List<String> serviceNames() {
    LinkedHashSet<String> names = new LinkedHashSet<>(services.keySet());
    names.addAll(streamServices.keySet());
    return List.copyOf(names);
  }

  /**
   * The ALPN names a TLS handshake accepts: those of the other protocols that have one, then
   * Tether's own ("tether"); none when no other protocol has one, so a server that speaks Tether
   * only negotiates nothing, as before.
   */
  List<String> applicationProtocols() {
    List<String> names = new ArrayList<>();
    for (WireProtocol p : wireProtocols) {
      if (p.applicationProtocol() != null) {
        names.add(p.applicationProtocol());
      }
    }
    if (!names.isEmpty()) {
      names.add("tether");
    }
    return List.copyOf(names);
  }

  /** The server's TLS context, with the ALPN names of {@link #applicationProtocols()}. */
  SslContext tlsContext() {
    return TlsContexts.forServer(tls, applicationProtocols());
  }
}
