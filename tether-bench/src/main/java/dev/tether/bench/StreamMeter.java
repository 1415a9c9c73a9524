package dev.tether.bench;

import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * Counts the items that reach the streams of one run during its measured phase and records each
 * one's age (now minus its stamp) in a histogram per stream, merged at the end; items before or
 * after the phase only prove the stream moves. Failures are kept, the first one reported.
 */
final class StreamMeter {
  private static final long HIGHEST_NANOS = 60_000_000_000L;

  private final List<Sink> sinks = new ArrayList<>();
  private volatile long startNanos = Long.MAX_VALUE;
  private volatile long endNanos = Long.MAX_VALUE;
  private volatile Throwable failure;

  /**
   * A new sink for one stream; its items arrive one at a time (each stream's signals are serial).
   */
  synchronized Sink newSink() {
    Sink sink = new Sink();
    sinks.add(sink);
    return sink;
  }

  /** Measures from now for {@code nanos}. */
  void measureFor(long nanos) {
    long now = System.nanoTime();
    endNanos = now + nanos;
    startNanos = now;
  }

  /** Items in the measured phase, over every stream. */
  synchronized long items() {
    return sinks.stream().mapToLong(Sink::counted).sum();
  }

  /** Items at any time, over every stream: tells whether the streams moved at all. */
  synchronized long itemsSeen() {
    return sinks.stream().mapToLong(Sink::seen).sum();
  }

  /** The ages of the measured items of every stream, in nanoseconds. */
  synchronized Histogram ages() {
    Histogram all = new Histogram(HIGHEST_NANOS, 3);
    sinks.forEach(s -> s.addTo(all));
    return all;
  }

  /** The first failure a stream reported, or null. */
  Throwable failure() {
    return failure;
  }

  /**
   * One stream's end of the meter; locked (uncontended) so the totals read after the run are whole.
   */
  final class Sink {
    private final Histogram ages = new Histogram(HIGHEST_NANOS, 3);
    private long counted;
    private long seen;

    synchronized void onItem(byte[] item) {
      long now = System.nanoTime();
      seen++;
      if (now >= startNanos && now < endNanos) {
        counted++;
        ages.recordValue(Math.min(HIGHEST_NANOS, Math.max(0, StampedItems.ageNanos(item, now))));
      }
    }

    synchronized long counted() {
      return counted;
    }

    synchronized long seen() {
      return seen;
    }

    synchronized void addTo(Histogram all) {
      all.add(ages);
    }

    void onError(Throwable cause) {
      if (failure == null) {
        failure = cause;
      }
    }
  }
}
