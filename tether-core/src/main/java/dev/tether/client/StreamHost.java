package dev.tether.client;

import dev.tether.internal.EventBus;
import dev.tether.spi.Scheduler;
import dev.tether.spi.Ticker;
import dev.tether.stream.StreamItemCounts;
import java.util.concurrent.CompletableFuture;

/**
 * What a {@link ClientStream} asks of the runtime: a connection for its proxy (as a first call
 * would find one) and its key's supervisor when it resumes, the hand-over of its opening and
 * resuming calls, the runtime's settings, clock, timers and events, and its item counts.
 */
interface StreamHost {
  ClientConfig config();

  Ticker ticker();

  EventBus events();

  /** The runtime's counts of stream items, of which each stream keeps its share. */
  StreamItemCounts streamItems();

  /** Finds or opens a connection for the proxy, as its first call would. */
  CompletableFuture<RequestChannel> establish(ProxySettings settings, ProxyBinding binding);

  /**
   * The connection of {@code candidate}'s key from its supervisor, waiting through the key's
   * backoff for its next attempt when that is due before {@code deadlineNanos}.
   */
  CompletableFuture<RequestChannel> awaitReady(
      Candidate candidate, String connectionId, long deadlineNanos);

  /** The client interceptor, if there is one, watches {@code inv} (a stream's opening). */
  void watch(Invocation inv);

  /** Hands a call to a connection. */
  void hand(Invocation inv, RequestChannel connection);

  /** Runs {@code task} on the control executor after {@code delayNanos}. */
  Scheduler.Cancellable scheduleOnControl(Runnable task, long delayNanos);
}
