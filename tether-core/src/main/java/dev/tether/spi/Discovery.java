package dev.tether.spi;

import dev.tether.Endpoint;
import java.util.List;

/**
 * Where a proxy finds its servers when the list may change while it lives. Implementations are
 * thread-safe; the runtime reads {@link #endpoints()} before each selection and, through {@link
 * #subscribe}, hears of changes without waiting for the next call.
 */
public interface Discovery {
  /** The endpoints known now; the same list object until it changes. */
  List<Endpoint> endpoints();

  /** A connection to one of the endpoints failed: a source may take it as a hint to refresh. */
  default void onConnectFailure(Endpoint endpoint) {}

  /**
   * Calls {@code onChange} (on any thread, without locks held) after each change of {@link
   * #endpoints()}, until the returned subscription is closed. A discovery that never changes may
   * ignore it.
   */
  default Subscription subscribe(Runnable onChange) {
    return () -> {};
  }

  /** Stops change notifications for one subscriber. */
  @FunctionalInterface
  interface Subscription extends AutoCloseable {
    @Override
    void close();
  }
}
