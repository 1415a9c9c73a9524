package dev.tether.cli.demo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * What happened during a demo run and when, relative to the moment the callers started. Each event
 * is also handed to a live consumer as it happens, so a user watching a ten-second run sees the
 * disruption when it strikes. Thread-safe.
 */
public final class Timeline {
  /**
   * One thing that happened.
   *
   * @param at time since the callers started
   */
  public record Event(Duration at, String what) {}

  private final LongSupplier nanoClock;
  private final Consumer<Event> live;
  private final List<Event> events = new ArrayList<>();

  /** Set by {@link #start()}; 0 before. */
  private volatile long startNanos;

  Timeline(LongSupplier nanoClock, Consumer<Event> live) {
    this.nanoClock = nanoClock;
    this.live = live;
  }

  void start() {
    startNanos = nanoClock.getAsLong();
  }

  long startNanos() {
    return startNanos;
  }

  /** Time since {@link #start()}. */
  Duration elapsed() {
    return Duration.ofNanos(nanoClock.getAsLong() - startNanos);
  }

  /** Records an event at the current time and shows it. */
  Event record(String what) {
    Event e = new Event(elapsed(), what);
    synchronized (events) {
      events.add(e);
    }
    live.accept(e);
    return e;
  }

  List<Event> events() {
    synchronized (events) {
      return List.copyOf(events);
    }
  }
}
