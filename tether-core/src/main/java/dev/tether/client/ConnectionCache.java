package dev.tether.client;

/**
 * A proxy's cached connection as the cluster views ({@link TopologyViews}) see it: which one is
 * cached, and forgetting it when the view's primary moves elsewhere. {@link ProxyBinding} is the
 * one implementation; the views name only this, so they need nothing of the call side.
 */
interface ConnectionCache {
  /** The cached connection, usable or not; null when none is. */
  RequestChannel cachedConnection();

  /** Drops the cached connection if it is still {@code c}; null forgets whatever is cached. */
  void forget(RequestChannel c);
}
