package dev.tether.zookeeper;

import dev.tether.Endpoint;
import dev.tether.spi.Discovery;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.utils.ZKPaths;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A live view of the servers registered for one service, kept by a Curator cache of the service's
 * node. {@link #endpoints()} is the same list object until the view changes; subscribers hear of
 * each change. While ZooKeeper is unreachable the last known list stays, and it never empties.
 */
public final class ZooKeeperDiscovery implements Discovery, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ZooKeeperDiscovery.class);

  private final String service;
  private final String servicePath;
  private final VersionRange versions;
  private final CuratorFramework client;
  private final CuratorCache cache;
  private final ConnectionStateListener connectionWatcher = this::onConnectionStateChanged;
  private final List<Runnable> subscribers = new CopyOnWriteArrayList<>();
  private final CountDownLatch loaded = new CountDownLatch(1);

  /** Written only under this object's monitor (one writer at a time); read by any thread. */
  private volatile List<Endpoint> published = List.of();

  private volatile List<RegisteredServer> registered = List.of();
  private boolean reachable = true;

  ZooKeeperDiscovery(
      CuratorFramework client, String servicePath, String service, VersionRange versions) {
    this.client = client;
    this.servicePath = servicePath;
    this.service = service;
    this.versions = versions;
    this.cache = CuratorCache.build(client, servicePath);
    cache
        .listenable()
        .addListener(
            CuratorCacheListener.builder()
                .forAll((type, before, after) -> refresh())
                .forInitialized(
                    () -> {
                      refresh();
                      loaded.countDown();
                    })
                .build());
  }

  /** Starts watching and waits up to {@code firstLoad} for the registry's current view. */
  ZooKeeperDiscovery start(Duration firstLoad) {
    client.getConnectionStateListenable().addListener(connectionWatcher);
    cache.start();
    try {
      if (!loaded.await(firstLoad.toNanos(), TimeUnit.NANOSECONDS)) {
        log.warn(
            "discovery of {}: no answer from ZooKeeper within {}; starting with no servers",
            service,
            firstLoad);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return this;
  }

  /** The service this discovery watches. */
  public String service() {
    return service;
  }

  @Override
  public List<Endpoint> endpoints() {
    return published;
  }

  /**
   * Every server registered for the service now, as the registry says (no version filter, no
   * memory).
   */
  public List<RegisteredServer> servers() {
    return registered;
  }

  @Override
  public Subscription subscribe(Runnable onChange) {
    subscribers.add(onChange);
    return () -> subscribers.remove(onChange);
  }

  private void onConnectionStateChanged(CuratorFramework c, ConnectionState state) {
    synchronized (this) {
      reachable = state.isConnected();
    }
    refresh();
  }

  /**
   * Re-derives the published list from the cache; runs on Curator's threads, one change at a time.
   */
  private void refresh() {
    boolean changed;
    synchronized (this) {
      List<RegisteredServer> now = serversInCache();
      registered = now;
      List<Endpoint> next = PublishedServers.next(published, now, reachable, versions);
      changed = next != published;
      published = next;
    }
    if (changed) {
      notifySubscribers();
    }
  }

  private List<RegisteredServer> serversInCache() {
    List<RegisteredServer> out = new ArrayList<>();
    cache.stream()
        .filter(node -> servicePath.equals(ZKPaths.getPathAndNode(node.getPath()).getPath()))
        .map(ChildData::getData)
        .map(RegisteredServer::fromJsonOrNull)
        .filter(r -> r != null)
        .forEach(out::add);
    return List.copyOf(out);
  }

  private void notifySubscribers() {
    for (Runnable s : subscribers) {
      try {
        s.run();
      } catch (RuntimeException e) {
        log.warn("a subscriber of the discovery of {} failed; it stays subscribed", service, e);
      }
    }
  }

  /** Stops watching; the last list stays readable. */
  @Override
  public void close() {
    client.getConnectionStateListenable().removeListener(connectionWatcher);
    cache.close();
  }

  /** Names the discovery in a call's failure ("no endpoint for kv: ... lists none"). */
  @Override
  public String toString() {
    return "ZooKeeper discovery of " + service + " at " + servicePath;
  }
}
