package dev.tether.client;

import dev.tether.internal.Backoff;
import dev.tether.internal.EventBus;
import dev.tether.internal.SerialExecutor;
import dev.tether.spi.Scheduler;
import dev.tether.spi.Ticker;
import java.util.List;
import java.util.Random;

/**
 * What a node group may ask of the client (load balancing and node health): endpoint selection, the
 * supervisor of each node's connection, and the runtime's control executor, clock and events. The
 * cluster package sees the client only through this and {@link NodeRouter}.
 */
public interface NodeHost {
  List<Candidate> select(ProxySettings settings);

  /**
   * The supervisor of the connection to {@code candidate}; one per key, shared with pinned proxies.
   */
  ConnectionSupervisor supervisor(Candidate candidate, String connectionId);

  /** True when the server behind {@code c} satisfies the proxy's version range. */
  boolean isCompatible(ProxySettings settings, RequestChannel c);

  /**
   * The reconnect backoff of keys a node group owns (the RethinkDB driver's doubling preset by
   * default).
   */
  Backoff nodeBackoff();

  /** When a node that answers badly is ejected, and for how long. */
  EjectionPolicy ejection();

  SerialExecutor control();

  Scheduler.Cancellable scheduleOnControl(Runnable task, long delayNanos);

  EventBus events();

  Ticker ticker();

  Random random();

  boolean isClosing();
}
