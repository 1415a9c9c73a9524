package dev.tether.cli.kv;

import java.util.Objects;

/** One server's implementation of {@link KeyValue} over a (possibly shared) store. */
public final class KeyValueService implements KeyValue {
  private final String serverName;
  private final KeyValueStore store;
  private final ServerStats stats;
  private final Runnable afterIncrement;

  /** Serves {@code store} under the name {@code serverName}, counting into {@code stats}. */
  public KeyValueService(String serverName, KeyValueStore store, ServerStats stats) {
    this(serverName, store, stats, () -> {});
  }

  /**
   * As the other constructor; {@code afterIncrement} runs after each increment, before its reply.
   */
  public KeyValueService(
      String serverName, KeyValueStore store, ServerStats stats, Runnable afterIncrement) {
    this.serverName = Objects.requireNonNull(serverName);
    this.store = Objects.requireNonNull(store);
    this.stats = Objects.requireNonNull(stats);
    this.afterIncrement = Objects.requireNonNull(afterIncrement);
  }

  @Override
  public Entry put(String key, String value) {
    stats.callServed();
    store.put(key, value);
    return new Entry(key, value, serverName);
  }

  @Override
  public Entry get(String key) {
    stats.callServed();
    return new Entry(key, store.get(key), serverName);
  }

  @Override
  public Count increment(String counter) {
    stats.callServed();
    long value = store.increment(counter);
    // Counted right after the store changed: the demo's "executed" must include increments whose
    // answer is lost when the server dies a moment later.
    stats.incrementExecuted();
    afterIncrement.run();
    return new Count(counter, value, serverName);
  }

  @Override
  public String whoami() {
    stats.callServed();
    return serverName;
  }
}
