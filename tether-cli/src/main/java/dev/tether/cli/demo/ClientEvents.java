package dev.tether.cli.demo;

import dev.tether.observe.TetherEvent;
import dev.tether.observe.TetherListener;
import java.util.EnumMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The client's events counted by kind and endpoint, for the showcase's live table and for the proof
 * that each phase was noticed (a heartbeat timeout for a freeze, a GOAWAY for a drain).
 * Thread-safe; the runtime delivers events on its own thread.
 */
final class ClientEvents implements TetherListener {
  /** Events without an endpoint are counted under this one. */
  static final String NO_ENDPOINT = "";

  private final Map<TetherEvent.Kind, Map<String, LongAdder>> counts =
      new EnumMap<>(TetherEvent.Kind.class);

  ClientEvents() {
    for (TetherEvent.Kind kind : TetherEvent.Kind.values()) {
      counts.put(kind, new ConcurrentHashMap<>());
    }
  }

  @Override
  public void onEvent(TetherEvent event) {
    String endpoint = event.endpoint() == null ? NO_ENDPOINT : event.endpoint();
    counts.get(event.kind()).computeIfAbsent(endpoint, e -> new LongAdder()).increment();
  }

  /** Events of {@code kind} so far, by endpoint. */
  Map<String, Long> byEndpoint(TetherEvent.Kind kind) {
    Map<String, Long> out = new TreeMap<>();
    counts.get(kind).forEach((endpoint, n) -> out.put(endpoint, n.sum()));
    return out;
  }

  /** Events of {@code kind} so far, whatever their endpoint. */
  long total(TetherEvent.Kind kind) {
    return counts.get(kind).values().stream().mapToLong(LongAdder::sum).sum();
  }

  /** Events of {@code kind} so far from {@code endpoint}. */
  long count(TetherEvent.Kind kind, String endpoint) {
    LongAdder n = counts.get(kind).get(endpoint);
    return n == null ? 0 : n.sum();
  }
}
