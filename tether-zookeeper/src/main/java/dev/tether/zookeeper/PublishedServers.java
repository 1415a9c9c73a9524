package dev.tether.zookeeper;

import dev.tether.Endpoint;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The rule deciding which endpoints a discovery hands to the runtime, as a pure function: the
 * registry's word while it is reachable, the last known list while it is not, and never an empty
 * list over a known one (an empty view is far more often a registry hiccup, such as sessions being
 * re-established, than every server of a service gone at once).
 */
final class PublishedServers {
  private PublishedServers() {}

  /**
   * The list to publish next; {@code published} itself (the same object) when nothing changes.
   *
   * @param published what the runtime sees now
   * @param registered the servers the registry holds now
   * @param registryReachable whether the registry's connection is up
   * @param versions the versions to keep
   */
  static List<Endpoint> next(
      List<Endpoint> published,
      Collection<RegisteredServer> registered,
      boolean registryReachable,
      VersionRange versions) {
    if (!registryReachable) {
      return published;
    }
    List<Endpoint> fresh = endpointsOf(registered, versions);
    if (fresh.isEmpty() && !published.isEmpty()) {
      return published;
    }
    return fresh.equals(published) ? published : fresh;
  }

  private static List<Endpoint> endpointsOf(
      Collection<RegisteredServer> registered, VersionRange versions) {
    List<Endpoint> out = new ArrayList<>();
    // Sorted so that the same servers always give an equal list, whatever order the cache walks in.
    List<RegisteredServer> sorted = new ArrayList<>(registered);
    sorted.sort(java.util.Comparator.comparing(RegisteredServer::serverId));
    for (RegisteredServer server : sorted) {
      if (versions.contains(server.version())) {
        for (Endpoint e : server.parsedEndpoints()) {
          if (!out.contains(e)) {
            out.add(e);
          }
        }
      }
    }
    return List.copyOf(out);
  }
}
