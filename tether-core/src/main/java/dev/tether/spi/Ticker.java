package dev.tether.spi;

/**
 * A source of monotonic nanoseconds. Every time-dependent decision reads one, so tests can put a
 * fake clock in its place.
 */
@FunctionalInterface
public interface Ticker {
  long nanoTime();

  /** The JVM's monotonic clock. */
  static Ticker system() {
    return System::nanoTime;
  }
}
