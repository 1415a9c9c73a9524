package dev.tether.micrometer;

import dev.tether.observe.TetherEvent;
import dev.tether.observe.TetherListener;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts the stream events of one client runtime or server from the moment it is added as its
 * listener: streams opened, resumed, lost and closed (the items come from the status snapshots,
 * which count open streams too). Written by the runtime's event thread, read by scrapes.
 */
final class StreamTally implements TetherListener {
  /** The stream events counted, each one tag value of the events counter. */
  static final List<TetherEvent.Kind> KINDS =
      List.of(
          TetherEvent.Kind.STREAM_OPENED,
          TetherEvent.Kind.STREAM_RESUMED,
          TetherEvent.Kind.STREAM_LOST,
          TetherEvent.Kind.STREAM_CLOSED);

  private final Map<TetherEvent.Kind, LongAdder> events = new EnumMap<>(TetherEvent.Kind.class);

  StreamTally() {
    for (TetherEvent.Kind k : KINDS) {
      events.put(k, new LongAdder());
    }
  }

  @Override
  public void onEvent(TetherEvent event) {
    LongAdder count = events.get(event.kind());
    if (count == null) {
      return;
    }
    count.increment();
  }

  double events(TetherEvent.Kind kind) {
    return events.get(kind).sum();
  }

  /** The tag value of {@code kind}: "opened" for STREAM_OPENED. */
  static String tagOf(TetherEvent.Kind kind) {
    return kind.name().substring("STREAM_".length()).toLowerCase(Locale.ROOT);
  }
}
