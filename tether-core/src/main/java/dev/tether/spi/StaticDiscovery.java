package dev.tether.spi;

import dev.tether.Endpoint;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Seeds given by the application, changeable at run time with {@link #add}, {@link #remove} and
 * {@link #set}. Thread-safe; readers get an immutable snapshot that stays the same object until the
 * next change, and subscribers hear of each change after it is made.
 */
public final class StaticDiscovery implements Discovery {
  private volatile List<Endpoint> endpoints;
  private final List<Runnable> subscribers = new CopyOnWriteArrayList<>();

  private StaticDiscovery(List<Endpoint> endpoints) {
    this.endpoints = List.copyOf(endpoints);
  }

  /** Seeds in grammar form, each one endpoint, e.g. {@code "tcp -h 127.0.0.1 -p 7000"}. */
  public static StaticDiscovery of(String... endpoints) {
    List<Endpoint> parsed = new ArrayList<>();
    for (String e : endpoints) {
      parsed.add(Endpoint.parse(e));
    }
    return new StaticDiscovery(parsed);
  }

  public static StaticDiscovery of(List<Endpoint> endpoints) {
    return new StaticDiscovery(endpoints);
  }

  @Override
  public List<Endpoint> endpoints() {
    return endpoints;
  }

  public void add(String endpoint) {
    synchronized (this) {
      List<Endpoint> next = new ArrayList<>(endpoints);
      next.add(Endpoint.parse(endpoint));
      endpoints = List.copyOf(next);
    }
    notifySubscribers();
  }

  public void remove(String endpoint) {
    synchronized (this) {
      List<Endpoint> next = new ArrayList<>(endpoints);
      next.remove(Endpoint.parse(endpoint));
      endpoints = List.copyOf(next);
    }
    notifySubscribers();
  }

  public void set(List<Endpoint> replacement) {
    synchronized (this) {
      endpoints = List.copyOf(replacement);
    }
    notifySubscribers();
  }

  @Override
  public Subscription subscribe(Runnable onChange) {
    subscribers.add(onChange);
    return () -> subscribers.remove(onChange);
  }

  @Override
  public String toString() {
    return "static discovery " + endpoints;
  }

  /** Outside the lock, so a subscriber may read {@link #endpoints()} or change the list again. */
  private void notifySubscribers() {
    for (Runnable r : subscribers) {
      r.run();
    }
  }
}
