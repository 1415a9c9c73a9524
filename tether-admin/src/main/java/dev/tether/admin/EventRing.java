package dev.tether.admin;

import dev.tether.observe.TetherEvent;
import dev.tether.observe.TetherListener;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The last {@link #CAPACITY} events of every runtime and server an admin page listens to, each
 * stamped with the wall-clock time it arrived (event nanos are on each runtime's own Ticker, which
 * a page cannot compare). Memory stays bounded whatever the event rate.
 */
final class EventRing implements TetherListener {
  static final int CAPACITY = 100;

  /**
   * One event as the page shows it: no Throwable is kept, only its class and message; the item
   * counts only on the events that end a stream, else null.
   */
  record Entry(
      long seq,
      long wallMillis,
      String kind,
      String endpoint,
      String detail,
      String cause,
      Long itemsSent,
      Long itemsReceived) {}

  private final Clock clock;
  private final ArrayDeque<Entry> entries = new ArrayDeque<>(CAPACITY);
  private long nextSeq;

  EventRing(Clock clock) {
    this.clock = clock;
  }

  @Override
  public void onEvent(TetherEvent event) {
    synchronized (this) {
      TetherEvent.StreamItems items = event.items();
      Entry e =
          new Entry(
              nextSeq++,
              clock.millis(),
              event.kind().name(),
              event.endpoint(),
              event.detail(),
              describe(event.cause()),
              items == null ? null : items.sent(),
              items == null ? null : items.received());
      if (entries.size() == CAPACITY) {
        entries.removeFirst();
      }
      entries.addLast(e);
    }
  }

  private static String describe(Throwable cause) {
    if (cause == null) {
      return null;
    }
    String message = cause.getMessage();
    return message == null
        ? cause.getClass().getSimpleName()
        : cause.getClass().getSimpleName() + ": " + message;
  }

  /** The kept events, oldest first. */
  synchronized List<Entry> snapshot() {
    return new ArrayList<>(entries);
  }
}
