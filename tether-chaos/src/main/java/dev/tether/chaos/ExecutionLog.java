package dev.tether.chaos;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * Which node ran which request when, for the checks that count executions per server (the leader
 * cut-off's). Capacity is fixed up front; executions past it are counted only. Servers record from
 * any thread; read once the calls completed.
 */
final class ExecutionLog {
  private final int[] nodes;
  private final int[] ids;
  private final long[] times;
  private final AtomicInteger next = new AtomicInteger();
  private final LongSupplier nanoClock;

  ExecutionLog(int capacity, LongSupplier nanoClock) {
    this.nodes = new int[capacity];
    this.ids = new int[capacity];
    this.times = new long[capacity];
    this.nanoClock = nanoClock;
  }

  /** Node {@code node} ran request {@code id} now. */
  void record(int node, int id) {
    int slot = next.getAndIncrement();
    if (slot < ids.length) {
      nodes[slot] = node;
      ids[slot] = id;
      times[slot] = nanoClock.getAsLong();
    }
  }

  /** How many executions were recorded (at most the capacity). */
  int size() {
    return Math.min(next.get(), ids.length);
  }

  /** Whether some executions came after the log was full. */
  boolean overflowed() {
    return next.get() > ids.length;
  }

  int node(int i) {
    return nodes[i];
  }

  int id(int i) {
    return ids[i];
  }

  long nanos(int i) {
    return times[i];
  }
}
