package dev.tether.client;

import dev.tether.Attempt;
import dev.tether.Endpoint;
import dev.tether.TetherException;
import dev.tether.internal.RetryBudget;
import dev.tether.internal.SerialExecutor;
import dev.tether.spi.Scheduler;
import dev.tether.spi.Ticker;
import java.time.Duration;
import java.util.List;

/**
 * What the call side (calls, their retries and hedges, the endpoint walk, sessions) may ask of the
 * client runtime: its control executor, clock and timers, the retry budget and reports, the node
 * router of a load-balanced proxy, and where a failed attempt goes next.
 */
interface CallHost {
  SerialExecutor control();

  Ticker ticker();

  Scheduler.Cancellable scheduleOnControl(Runnable task, long delayNanos);

  Scheduler.Cancellable scheduleOnControl(Runnable task, Duration delay);

  /** A new call's absolute deadline on the ticker, 0 for none. */
  long deadlineFor(ProxySettings settings);

  RetryBudget retryBudget();

  ClientReports reports();

  /** A failed attempt may run again (the call decided so): count, tell, and send it on. */
  void onRetry(Invocation inv, Attempt.Outcome outcome, TetherException cause, String endpoint);

  /** The node router shared by proxies like {@code settings}; a proxy's binding caches it. */
  NodeRouter routerFor(ProxySettings settings);

  /**
   * What a call of {@code endpoints} without a connection at its deadline waited for; control
   * executor.
   */
  CallTimeline.Wait waitAmong(List<Endpoint> endpoints);

  /** True once the runtime closes: nothing connects again, so a call that waits ends with it. */
  boolean isClosing();
}
