package dev.tether.client;

/**
 * The connection one proxy caches (Ice's connection caching): set after the proxy's first
 * successful selection, used until it stops being usable, then selection runs again. Calls of one
 * proxy come from any thread and a connection may be found on any loop, so the cached values are
 * published through volatile fields; each is replaced whole, never updated in place. It also names
 * what the proxy's calls may ask of the runtime, and its settings, so that a call needs one
 * reference to reach them. The runtime makes one per proxy.
 */
public final class ProxyBinding implements ConnectionCache {
  /** What the proxy's calls ask of the runtime. */
  final CallHost runtime;

  final ProxySettings settings;
  private volatile RequestChannel cached;
  private volatile boolean alternateUsed;

  /** The node group of a load-balanced proxy; null until its first call. */
  private volatile NodeRouter router;

  /** The proxy's batch requests waiting for its flushBatch(). */
  private final BatchQueue batch = new BatchQueue();

  ProxyBinding(CallHost runtime, ProxySettings settings) {
    this.runtime = runtime;
    this.settings = settings;
  }

  /** The cached connection when it can still take requests, else null. */
  public RequestChannel usable() {
    RequestChannel c = cached;
    return c != null && c.isUsable() ? c : null;
  }

  @Override
  public RequestChannel cachedConnection() {
    return cached;
  }

  /**
   * True when the cached connection was replaced for its age: the next selection is made afresh, as
   * for a first call, so that servers added behind the proxy's endpoints get their share.
   */
  boolean lostToRotation() {
    RequestChannel c = cached;
    return c != null && c.wasRotated();
  }

  void cache(RequestChannel c, boolean toAlternate) {
    cached = c;
    alternateUsed = toAlternate;
  }

  /** True when the cached connection went to an alternate rather than the cluster's primary. */
  public boolean alternateWasUsed() {
    return alternateUsed;
  }

  BatchQueue batch() {
    return batch;
  }

  /**
   * The node router of the proxy's group, asked of {@code host} at the first call and kept: a
   * proxy's settings never change, so neither does its group.
   */
  NodeRouter router(CallHost host) {
    NodeRouter r = router;
    if (r == null) {
      r = host.routerFor(settings);
      router = r;
    }
    return r;
  }

  /** Drops whatever is cached. */
  public void forgetAll() {
    cached = null;
  }

  @Override
  public void forget(RequestChannel c) {
    if (c == null || cached == c) {
      cached = null;
    }
  }
}
