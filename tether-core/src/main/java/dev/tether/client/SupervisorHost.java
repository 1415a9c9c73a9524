package dev.tether.client;

import dev.tether.internal.EventBus;
import dev.tether.internal.SerialExecutor;
import dev.tether.spi.Scheduler;
import dev.tether.spi.Ticker;
import java.util.Random;

/**
 * What a {@link ConnectionSupervisor}, its extra connections and its rotation ask of the runtime:
 * the control executor they live on, its timers, its clock and events, and new connections.
 */
interface SupervisorHost {
  SerialExecutor control();

  /** Runs {@code task} on the control executor after {@code delayNanos}. */
  Scheduler.Cancellable scheduleOnControl(Runnable task, long delayNanos);

  /** A new, unconnected connection for {@code key}, of the candidate's transport. */
  RequestChannel newConnection(Candidate candidate, ConnectionKey key);

  Random random();

  Ticker ticker();

  EventBus events();

  /** How many connections a key may open beside its own under load. */
  int maxExtraConnections();

  /**
   * True once the runtime closes, before its supervisors' shutdown runs: from then on nothing is
   * dialled, since the event loops a dial needs are about to stop. Any thread.
   */
  boolean isClosing();
}
