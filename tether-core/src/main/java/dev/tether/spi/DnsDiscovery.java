package dev.tether.spi;

import dev.tether.Endpoint;
import dev.tether.Resolver;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Nodes from a DNS name: one endpoint per address the name resolves to, on a fixed transport and
 * port. Re-resolved every {@code period}, and again soon after a connection to one of them fails
 * (at most once per {@code minRefresh}). A failed lookup keeps the last known list.
 */
public final class DnsDiscovery implements Discovery, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DnsDiscovery.class);

  private final Endpoint template;
  private final Resolver resolver;
  private final Duration period;
  private final Duration minRefresh;
  private final Scheduler scheduler;
  private final Ticker ticker;
  private volatile List<Endpoint> endpoints = List.of();
  private volatile long lastRefreshNanos;
  private volatile Scheduler.Cancellable next;
  private volatile boolean closed;

  /**
   * Held by a refresh (lookup included) and by close, so the schedule of the next refresh is one.
   */
  private final ReentrantLock refreshing = new ReentrantLock();

  /**
   * @param template the transport, port and options of every endpoint; its host is the name to
   *     resolve
   */
  public DnsDiscovery(
      Endpoint template,
      Resolver resolver,
      Duration period,
      Duration minRefresh,
      Scheduler scheduler,
      Ticker ticker) {
    this.template = template;
    this.resolver = resolver;
    this.period = period;
    this.minRefresh = minRefresh;
    this.scheduler = scheduler;
    this.ticker = ticker;
    refresh();
  }

  @Override
  public List<Endpoint> endpoints() {
    return endpoints;
  }

  /**
   * Resolves the name now and schedules the next periodic refresh. The lookup blocks, so refreshes
   * take turns on a lock rather than a monitor: a caller's virtual thread that reaches here after a
   * failed connect waits without pinning its carrier.
   */
  public void refresh() {
    refreshing.lock();
    try {
      if (closed) {
        return;
      }
      lastRefreshNanos = ticker.nanoTime();
      resolveNow();
      if (next != null) {
        next.cancel();
      }
      next = scheduler.schedule(this::refresh, period.toNanos());
    } finally {
      refreshing.unlock();
    }
  }

  private void resolveNow() {
    try {
      List<Endpoint> resolved = new ArrayList<>();
      for (InetAddress a : resolver.resolve(template.host())) {
        resolved.add(template.withHost(a.getHostAddress()));
      }
      if (!resolved.equals(endpoints)) {
        endpoints = List.copyOf(resolved);
      }
    } catch (UnknownHostException e) {
      log.debug("cannot resolve {}; keeping {}", template.host(), endpoints);
    }
  }

  @Override
  public void onConnectFailure(Endpoint endpoint) {
    if (ticker.nanoTime() - lastRefreshNanos >= minRefresh.toNanos()) {
      refresh();
    }
  }

  @Override
  public void close() {
    refreshing.lock();
    try {
      closed = true;
      if (next != null) {
        next.cancel();
      }
    } finally {
      refreshing.unlock();
    }
  }
}
