package dev.tether.client;

import dev.tether.Endpoint;
import java.util.List;

/**
 * Where a proxy's endpoints come from when they may change while it lives (service discovery).
 * Implementations are thread-safe; the runtime reads {@link #endpoints()} before each selection.
 */
public interface EndpointSource {
  /** The endpoints known now. */
  List<Endpoint> endpoints();

  /** A connection to one of the endpoints failed: a source may take it as a hint to refresh. */
  default void onConnectFailure(Endpoint endpoint) {}
}
