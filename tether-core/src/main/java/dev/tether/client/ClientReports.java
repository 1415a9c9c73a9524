package dev.tether.client;

import dev.tether.Attempt;
import dev.tether.Endpoint;
import dev.tether.TetherException;
import dev.tether.internal.EventBus;
import dev.tether.observe.ConnectionStatus;
import dev.tether.observe.NodeStatus;
import dev.tether.observe.TetherEvent;
import dev.tether.observe.TetherStatus;
import dev.tether.spi.Scheduler;
import dev.tether.stream.StreamItemCounts;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.LongAdder;

/**
 * What a client runtime tells its observers about calls: the events of retries, hedges, spent
 * budgets and reroutes, the counters behind them, and the status snapshot that shows them beside
 * the connections and nodes. Thread-safe; it decides nothing.
 */
final class ClientReports {
  /** How long a status snapshot waits for a connection's loop, on the runtime's clock. */
  private static final Duration STATUS_PATIENCE = Duration.ofSeconds(1);

  private final EventBus events;
  private final Scheduler scheduler;
  private final LongAdder retries = new LongAdder();
  private final LongAdder budgetRefusals = new LongAdder();
  private final StreamItemCounts streamItems = new StreamItemCounts();

  ClientReports(EventBus events, Scheduler scheduler) {
    this.events = events;
    this.scheduler = scheduler;
  }

  /** The items the runtime's streams sent and delivered, open ones included. */
  StreamItemCounts streamItems() {
    return streamItems;
  }

  /** A hedge of a call was sent; it counts as a retry. */
  void onHedge(ProxySettings settings, String operation, int attempt) {
    retries.increment();
    if (events.isOn()) {
      events.emit(
          TetherEvent.Kind.RETRY,
          null,
          "hedging "
              + operation
              + " of "
              + settings.identity()
              + " (attempt "
              + attempt
              + "): no answer within "
              + settings.hedgingDelay().toMillis()
              + " ms",
          null);
    }
  }

  /** A hedge of {@code call} (its attempt, never sent) was refused by the retry budget. */
  void onHedgeRefused(ReplyFuture call) {
    budgetRefusals.increment();
    if (events.isOn()) {
      events.emit(
          TetherEvent.Kind.RETRY_BUDGET_EXHAUSTED,
          null,
          "not hedging " + call.describe() + ": the retry budget is spent",
          null);
    }
  }

  /** A failed attempt of {@code call} runs again, as its retry number {@code retry}. */
  void onRetry(
      ReplyFuture call,
      int retry,
      Attempt.Outcome outcome,
      TetherException cause,
      String endpoint) {
    retries.increment();
    if (events.isOn()) {
      events.emit(
          TetherEvent.Kind.RETRY,
          endpoint,
          "retrying "
              + call.describe()
              + " (retry "
              + retry
              + ") after "
              + outcome
              + ": "
              + cause.getMessage(),
          cause);
    }
  }

  void onBudgetRefusal(
      ReplyFuture call, Attempt.Outcome outcome, TetherException cause, String endpoint) {
    budgetRefusals.increment();
    if (events.isOn()) {
      events.emit(
          TetherEvent.Kind.RETRY_BUDGET_EXHAUSTED,
          endpoint,
          "not retrying " + call.describe() + " after " + outcome + ": the retry budget is spent",
          cause);
    }
  }

  /** A proxy's connection went to an alternate of the cluster view rather than its primary. */
  void onReroute(ProxySettings settings, RequestChannel connection) {
    reroute(
        connection,
        settings.identity() + " now uses alternate " + connection + " of its cluster view");
  }

  /** A connection manager told where the cluster is; the proxy moves on to its view. */
  void onManagerRedirect(ProxySettings settings, RequestChannel manager, List<Endpoint> view) {
    reroute(
        manager,
        settings.identity()
            + ": "
            + manager
            + " is a connection manager outside its view; now using "
            + view);
  }

  /**
   * The proxy reached an alternate of its view first (its own endpoints named it): it goes to the
   * primary.
   */
  void onPrimaryRedirect(ProxySettings settings, RequestChannel alternate, List<Endpoint> view) {
    reroute(
        alternate,
        settings.identity()
            + ": "
            + alternate
            + " is an alternate of its view; now using "
            + view
            + ", primary first");
  }

  /**
   * Every server of the view failed and the configured server that answered knows no other: it is
   * used.
   */
  void onViewUnreachable(ProxySettings settings, RequestChannel configured, List<Endpoint> view) {
    reroute(
        configured,
        settings.identity()
            + ": no server of its view "
            + view
            + " could be reached; using the configured "
            + configured
            + ", which announces no other");
  }

  private void reroute(RequestChannel connection, String detail) {
    if (events.isOn()) {
      events.emit(
          TetherEvent.Kind.REROUTE,
          connection instanceof BaseConnection b ? b.endpointText() : null,
          detail,
          null);
    }
  }

  /**
   * A snapshot of {@code connections} (each read on its own loop) and the nodes of {@code routers};
   * a loop that does not answer within a second of the runtime's clock leaves its connection out.
   */
  TetherStatus status(List<RequestChannel> connections, Collection<NodeRouter> routers) {
    List<CompletableFuture<ConnectionStatus>> pending = new ArrayList<>(connections.size());
    for (RequestChannel c : connections) {
      pending.add(c.status());
    }
    CompletableFuture<Void> answered =
        CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new));
    Scheduler.Cancellable patience = null;
    try {
      patience = scheduler.schedule(() -> answered.complete(null), STATUS_PATIENCE.toNanos());
    } catch (RejectedExecutionException stopping) {
      answered.complete(null); // the runtime's timers stopped: take what has answered
    }
    answered.exceptionally(failed -> null).join();
    if (patience != null) {
      patience.cancel();
    }
    List<ConnectionStatus> out = new ArrayList<>(pending.size());
    for (CompletableFuture<ConnectionStatus> f : pending) {
      // A loop that is shutting down or stuck: this snapshot goes without its connection.
      if (f.isDone() && !f.isCompletedExceptionally()) {
        out.add(f.join());
      }
    }
    List<NodeStatus> nodes = new ArrayList<>();
    for (NodeRouter r : routers) {
      nodes.addAll(r.nodeStatus());
    }
    return new TetherStatus(out, nodes, retries.sum(), budgetRefusals.sum(), streamItems.totals());
  }
}
