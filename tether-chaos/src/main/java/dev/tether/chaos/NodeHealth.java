package dev.tether.chaos;

/**
 * Which nodes can answer now, as the fault driver changed them: a node is down from the moment a
 * fault kills, drains or freezes it until that fault heals. Counts the outages (moments with no
 * node up) for the ledger, which excuses an idempotent failure only across one. Thread-safe.
 */
public final class NodeHealth {
  private final boolean[] down;
  private int downCount;
  private int outages;

  public NodeHealth(int nodes) {
    this.down = new boolean[nodes];
  }

  /** Node {@code i} cannot answer from now on. */
  public synchronized void markDown(int i) {
    if (!down[i]) {
      down[i] = true;
      downCount++;
      if (downCount == down.length) {
        outages++;
      }
    }
  }

  /** Node {@code i} answers again. */
  public synchronized void markUp(int i) {
    if (down[i]) {
      down[i] = false;
      downCount--;
    }
  }

  public synchronized boolean isUp(int i) {
    return !down[i];
  }

  /** True while no node is up. */
  public synchronized boolean noneUp() {
    return downCount == down.length;
  }

  /** How many times so far every node was down at once. */
  public synchronized int outages() {
    return outages;
  }
}
