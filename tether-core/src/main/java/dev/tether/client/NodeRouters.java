package dev.tether.client;

import dev.tether.InvocationMode;
import dev.tether.LoadBalancing;
import dev.tether.spi.ClientWireProtocol;
import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The runtime's node routers (load-balanced groups), one shared by every proxy with the same
 * endpoints, connection id, strategy, mode and version range. Made on first use; thread-safe.
 */
final class NodeRouters {
  private final ConcurrentHashMap<RouterKey, NodeRouter> routers = new ConcurrentHashMap<>();
  private final NodeRouter.Factory factory;
  private final NodeHost host;

  NodeRouters(NodeRouter.Factory factory, NodeHost host) {
    this.factory = factory;
    this.host = host;
  }

  /** The router of the proxy's group, made now if it is the first. */
  NodeRouter routerFor(ProxySettings settings) {
    Object source = settings.source() != null ? settings.source() : settings.fixedEndpoints();
    RouterKey key =
        new RouterKey(
            source,
            settings.connectionId(),
            settings.loadBalancing(),
            settings.mode(),
            settings.serverVersion(),
            settings.wireProtocol());
    return routers.computeIfAbsent(key, k -> factory.create(host, settings));
  }

  /** Every router made so far; for status. */
  Collection<NodeRouter> all() {
    return routers.values();
  }

  /** The runtime closes: every router's calls waiting for a ready node fail now. */
  void onRuntimeClosed() {
    for (NodeRouter r : routers.values()) {
      r.onRuntimeClosed();
    }
  }

  /**
   * A node group's identity: the version range is part of it, because a group marks the nodes
   * outside its range INCOMPATIBLE for every proxy that shares it. Null range: any version.
   */
  private record RouterKey(
      Object source,
      String connectionId,
      LoadBalancing strategy,
      InvocationMode mode,
      VersionRange versions,
      ClientWireProtocol protocol) {}
}
