package dev.tether.cli.kv;

import java.util.concurrent.atomic.LongAdder;

/**
 * What one server did, counted on the server side: the demo compares these figures with what its
 * clients were told, which is how it shows calls that ran but whose answer never arrived.
 */
public final class ServerStats {
  private final LongAdder served = new LongAdder();
  private final LongAdder incrementsExecuted = new LongAdder();
  private final LongAdder itemsStreamed = new LongAdder();

  void callServed() {
    served.increment();
  }

  void incrementExecuted() {
    incrementsExecuted.increment();
  }

  void itemStreamed() {
    itemsStreamed.increment();
  }

  /** Calls whose service code ran on this server, answered or not. */
  public long served() {
    return served.sum();
  }

  /** Increments applied to the store by this server, answered or not. */
  public long incrementsExecuted() {
    return incrementsExecuted.sum();
  }

  /** Stream items the {@code ticks} service of this server sent (a replayed item once). */
  public long itemsStreamed() {
    return itemsStreamed.sum();
  }
}
