package dev.tether.cluster;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Takes the live nodes in turn: one shared cursor, advanced atomically by every pick, so N
 * sequential picks give each node N / size calls, give or take one, and concurrent callers never
 * get the same turn. When the list changes the cursor simply continues over the new list. A retry
 * or hedge reads the cursor without taking a turn: were it to take one, a hedge after every call to
 * a slow node would skip the next node's turn, and first attempts would meet the slow node once in
 * every {@code size - 1} calls instead of once in {@code size}.
 */
public final class RoundRobinSelector implements NodeSelector {
  private final AtomicInteger cursor = new AtomicInteger();

  @Override
  public int pick(List<? extends NodeStats> live, long nowNanos) {
    // Masking the sign bit keeps the turn non-negative after the cursor wraps (once per 2^31
    // picks).
    int turn = cursor.getAndIncrement() & Integer.MAX_VALUE;
    return turn % live.size();
  }

  @Override
  public int pickAnother(List<? extends NodeStats> live, long nowNanos) {
    return (cursor.get() & Integer.MAX_VALUE) % live.size();
  }

  @Override
  public String toString() {
    return "RoundRobinSelector";
  }
}
