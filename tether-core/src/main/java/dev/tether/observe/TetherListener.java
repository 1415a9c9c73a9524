package dev.tether.observe;

/**
 * Receives a runtime's or server's events (docs/architecture.md, "Threads and owners"), one at a
 * time, in the order they happened, on a Tether thread that is never an event loop. A listener that
 * throws is logged and kept; it should return quickly, since later events wait for it.
 */
@FunctionalInterface
public interface TetherListener {
  void onEvent(TetherEvent event);
}
