package dev.tether.spi;

import dev.tether.Endpoint;
import dev.tether.Resolver;
import dev.tether.observe.TetherEvent;
import dev.tether.observe.TetherListener;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Nodes from a DNS name: one endpoint per address the name resolves to, on a fixed transport and
 * port. Re-resolved every {@code period}, and again soon after a connection to one of them fails
 * (at most once per {@code minRefresh}). An answer that is empty or an error (whatever the resolver
 * throws) keeps the last good list for {@code keepLastGood}, with a {@code DISCOVERY_STALE} event
 * when it starts and when the list expires; resolving goes on every period whatever happened.
 * Subscribers hear of each change of the list. A lookup that hangs holds up neither {@link #close}
 * nor the callers of {@link #onConnectFailure}, which leave it to answer.
 */
public final class DnsDiscovery implements Discovery, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DnsDiscovery.class);

  private final Endpoint template;
  private final Resolver resolver;
  private final Duration period;
  private final Duration minRefresh;
  private final Scheduler scheduler;
  private final Ticker ticker;
  private final Duration keepLastGood;
  private final TetherListener listener;
  private final List<Runnable> subscribers = new CopyOnWriteArrayList<>();
  private volatile List<Endpoint> endpoints = List.of();

  /** When the answers stopped being good while a last good list was kept; 0 while they are good. */
  private long staleSinceNanos;

  private volatile long lastRefreshNanos;
  private volatile Scheduler.Cancellable next;
  private volatile boolean closed;

  /** Set under the lock when a refresh changed the list; subscribers hear outside it. */
  private boolean changed;

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
    this(template, resolver, period, minRefresh, scheduler, ticker, Duration.ofMinutes(5), null);
  }

  /**
   * @param template the transport, port and options of every endpoint; its host is the name to
   *     resolve
   * @param keepLastGood how long an empty or failed answer keeps the last good list
   * @param listener hears the {@code DISCOVERY_STALE} events; null: none
   */
  public DnsDiscovery(
      Endpoint template,
      Resolver resolver,
      Duration period,
      Duration minRefresh,
      Scheduler scheduler,
      Ticker ticker,
      Duration keepLastGood,
      TetherListener listener) {
    this.keepLastGood = keepLastGood;
    this.listener = listener;
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
    refreshHolding();
  }

  /**
   * A refresh whose caller holds the lock: releases it before the subscribers hear, so none of them
   * runs under it.
   */
  private void refreshHolding() {
    boolean notify;
    try {
      if (closed) {
        return;
      }
      lastRefreshNanos = ticker.nanoTime();
      try {
        resolveNow();
      } finally {
        // Whatever the lookup did, the next one is scheduled: one bad answer never ends them.
        if (next != null) {
          next.cancel();
        }
        // Unless closed during the lookup: close does not wait for a resolver that hangs.
        next = closed ? null : scheduler.schedule(this::refresh, period.toNanos());
      }
      notify = changed;
      changed = false;
    } finally {
      refreshing.unlock();
    }
    if (notify) {
      for (Runnable r : subscribers) {
        r.run();
      }
    }
  }

  private void resolveNow() {
    List<Endpoint> resolved = new ArrayList<>();
    try {
      for (InetAddress a : resolver.resolve(template.host())) {
        resolved.add(template.withHost(a.getHostAddress()));
      }
    } catch (UnknownHostException | RuntimeException e) {
      noGoodAnswer("failed (" + e + ")");
      return;
    }
    if (resolved.isEmpty()) {
      noGoodAnswer("answered no address");
      return;
    }
    staleSinceNanos = 0;
    replaceWith(resolved);
  }

  /**
   * The lookup answered nothing usable: the last good list stays until {@code keepLastGood} has
   * passed since the first such answer, then the list empties (calls fail at once, naming this).
   */
  private void noGoodAnswer(String what) {
    List<Endpoint> kept = endpoints;
    if (kept.isEmpty()) {
      log.debug("{} {}; no endpoint known", template.host(), what);
      return;
    }
    long now = ticker.nanoTime();
    if (staleSinceNanos == 0) {
      staleSinceNanos = now;
      emit(
          template.host()
              + " "
              + what
              + "; keeping the last good list of "
              + kept.size()
              + " for up to "
              + keepLastGood.toMillis()
              + " ms");
    } else if (now - staleSinceNanos >= keepLastGood.toNanos()) {
      staleSinceNanos = 0;
      emit(
          template.host()
              + " "
              + what
              + " for "
              + keepLastGood.toMillis()
              + " ms; its last good list of "
              + kept.size()
              + " expired");
      replaceWith(List.of());
    }
  }

  private void replaceWith(List<Endpoint> resolved) {
    if (!resolved.equals(endpoints)) {
      endpoints = List.copyOf(resolved);
      changed = true;
    }
  }

  private void emit(String detail) {
    log.info("DNS discovery: {}", detail);
    if (listener != null) {
      listener.onEvent(
          new TetherEvent(
              TetherEvent.Kind.DISCOVERY_STALE,
              template.toString(),
              detail,
              null,
              ticker.nanoTime()));
    }
  }

  @Override
  public Subscription subscribe(Runnable onChange) {
    subscribers.add(onChange);
    return () -> subscribers.remove(onChange);
  }

  @Override
  public String toString() {
    return "DNS discovery of " + template.host() + " (port " + template.port() + ")";
  }

  @Override
  public void onConnectFailure(Endpoint endpoint) {
    // A lookup under way answers for this failure too: the caller (a connection's loop, often)
    // never queues behind a resolver that hangs.
    if (ticker.nanoTime() - lastRefreshNanos >= minRefresh.toNanos() && refreshing.tryLock()) {
      refreshHolding();
    }
  }

  @Override
  public void close() {
    closed = true;
    // A refresh whose lookup hangs holds the lock: it schedules nothing once it sees closed, so
    // close need not wait for it.
    if (refreshing.tryLock()) {
      try {
        if (next != null) {
          next.cancel();
        }
      } finally {
        refreshing.unlock();
      }
    }
  }
}
