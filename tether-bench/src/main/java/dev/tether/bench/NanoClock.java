package dev.tether.bench;

/** A monotonic clock in nanoseconds; the load generator reads time only through it. */
@FunctionalInterface
public interface NanoClock {

  /** The JVM's monotonic clock. */
  NanoClock SYSTEM = System::nanoTime;

  /** Nanoseconds since an arbitrary origin; only differences between readings mean anything. */
  long nanoTime();
}
