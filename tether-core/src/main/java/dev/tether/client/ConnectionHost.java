package dev.tether.client;

import dev.tether.internal.EventBus;
import dev.tether.spi.Scheduler;
import dev.tether.spi.Ticker;
import java.util.Random;
import java.util.concurrent.Executor;

/**
 * What a connection (stream or datagram) and the pieces it wires ask of the runtime holding it: the
 * runtime's settings, clock and events, and where to report what happened to it. The reports are
 * called on the connection's event loop and return at once.
 */
interface ConnectionHost {
  ClientConfig config();

  Ticker ticker();

  /** The runtime's source of randomness (seeded in tests). */
  Random random();

  EventBus events();

  /** Names this client in its HELLO. */
  String clientId();

  /** The largest frame this side accepts, as HELLO announces it. */
  int maxFrameSize();

  /** True once the runtime closes: whatever ends now ends for good. */
  boolean isClosing();

  /**
   * Keeps time with the runtime's scheduler, then runs {@code task} on {@code owner}; the handle
   * cancels even a task that already reached its owner.
   */
  Scheduler.Cancellable scheduleOn(Executor owner, Runnable task, long delayNanos);

  /** True when {@code c} is its key's own connection, whose dials its supervisor reports. */
  boolean isSupervisorsOwn(RequestChannel c);

  /** How long {@code c} may go without a call before it closes; 0: never. */
  long idleCloseNanos(RequestChannel c);

  /** {@code c} (a stream connection) has calls waiting for a slot; its supervisor spreads them. */
  void onSaturated(RequestChannel c);

  /** {@code c} closed; {@code unexpectedly} when it broke while serving. */
  void onConnectionClosed(RequestChannel c, boolean unexpectedly, Throwable cause);

  /** {@code c} reached its maximum age (the server's or this side's). */
  void onConnectionAged(RequestChannel c, String why);

  /** The server on {@code c} announced a new cluster view. */
  void onTopologyAnnounced(RequestChannel c);
}
