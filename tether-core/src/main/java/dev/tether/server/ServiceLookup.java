package dev.tether.server;

import java.util.Map;

/**
 * The service a connection's requests name, found without the server's map while they keep naming
 * the same one: the connection's decoder hands out the same String for a repeated name, so its
 * identity is enough to know the answer has not changed (the map is immutable). A name seen for
 * the first time, or decoded afresh, takes the map. One per connection, used on its event loop only.
 */
final class ServiceLookup {
  private final Map<String, ServiceHandler> services;
  /** The name looked up last, compared by identity; null before the first lookup. */
  private String lastName;
  /** What the map holds for {@link #lastName}, null included. */
  private ServiceHandler lastService;

  ServiceLookup(Map<String, ServiceHandler> services) {
    this.services = services;
  }

  /** The service registered as {@code name}, or null. */
  ServiceHandler find(String name) {
    if (name != lastName) {
      lastService = services.get(name);
      lastName = name;
    }
    return lastService;
  }
}
