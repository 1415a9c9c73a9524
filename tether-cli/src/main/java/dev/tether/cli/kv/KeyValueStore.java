package dev.tether.cli.kv;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The state behind {@link KeyValue}: values and counters in memory. Several servers may share one
 * store, the way stateless servers share a database, so that a client balancing over them reads
 * what it wrote wherever each call lands. Thread-safe.
 */
public final class KeyValueStore {
  private final Map<String, String> values = new ConcurrentHashMap<>();
  private final Map<String, Long> counters = new ConcurrentHashMap<>();

  /** Sets a value. */
  public void put(String key, String value) {
    values.put(key, value);
  }

  /** The value of {@code key}, or null. */
  public String get(String key) {
    return values.get(key);
  }

  /** Adds one to a counter atomically and returns the new value. */
  public long increment(String counter) {
    return counters.merge(counter, 1L, Long::sum);
  }

  /** The counter's current value; 0 when it was never incremented. */
  public long counter(String counter) {
    return counters.getOrDefault(counter, 0L);
  }
}
