package dev.tether.client;

import dev.tether.FailedAnswerException;
import dev.tether.TetherException;
import dev.tether.spi.Scheduler;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * An idempotent call that is sent again to another endpoint or node when no answer came within the
 * proxy's hedging delay (the tail-latency rule). Each attempt is an ordinary {@link Invocation}
 * with the call's deadline, excluded from the endpoints that already have the call; the first
 * answer wins (a protocol's failed answer too, as its status is the server's) and the others are
 * cancelled (CANCEL sent). Every hedge takes a retry token, so a slow cluster never gets several
 * times the load. State changes on the runtime's control executor.
 */
final class HedgedCall extends CallFuture<byte[]> {
  private final CallHost runtime;
  private final CallPath calls;
  private final ProxySettings settings;
  private final ProxyBinding binding;
  private final String operation;
  private final byte[] body;
  private final int flags;
  private final long deadlineNanos;

  // Control executor only.
  private final List<Invocation> attempts = new ArrayList<>();
  private int failed;
  private TetherException firstFailure;

  /** Non-null only while the next hedge waits for its delay. */
  private Scheduler.Cancellable nextHedge;

  private boolean noMoreHedges;

  /** The client interceptor's view of the call; null without one. Set before the first attempt. */
  private TracedCall trace;

  HedgedCall(
      CallHost runtime,
      CallPath calls,
      ProxySettings settings,
      ProxyBinding binding,
      String operation,
      byte[] body,
      int flags,
      long deadlineNanos) {
    this.runtime = runtime;
    this.calls = calls;
    this.settings = settings;
    this.binding = binding;
    this.operation = operation;
    this.body = body;
    this.flags = flags;
    this.deadlineNanos = deadlineNanos;
  }

  /**
   * Sends the first attempt now and arms the first hedge; {@code trace} (null for none) is the
   * client interceptor's view of the call, which each attempt reports to and this call ends.
   */
  HedgedCall start(TracedCall trace) {
    this.trace = trace;
    if (trace != null) {
      whenComplete((reply, failure) -> trace.onEnd(failure));
    }
    runtime
        .control()
        .execute(
            () -> {
              Invocation first = newAttempt(null);
              track(first);
              calls.start(first);
              armNextHedge();
            });
    return this;
  }

  /** An attempt with the call's deadline armed, before any thread but this one sees it. */
  private Invocation newAttempt(String reason) {
    Invocation inv = new Invocation(binding, operation, body, flags, deadlineNanos);
    // Made now, by the thread starting it: the attempt notes there which connection it waits for
    // while it is on none, and the next hedge keeps away from that one.
    CallExtras extras = inv.extras();
    if (trace != null) {
      extras.traceAs(trace, reason, false);
    }
    inv.armDeadline();
    return inv;
  }

  private void track(Invocation inv) {
    attempts.add(inv);
    inv.whenComplete(
        (reply, failure) -> runtime.control().execute(() -> onAttemptDone(inv, reply, failure)));
  }

  private void armNextHedge() {
    if (isDone() || noMoreHedges || attempts.size() >= settings.hedgingMaxAttempts()) {
      return;
    }
    nextHedge = runtime.scheduleOnControl(this::hedge, settings.hedgingDelay());
  }

  /**
   * No answer yet: send the call to an endpoint or node none of the attempts is on or waits for (an
   * attempt still dialling has no connection, but its endpoint has the call as much as any).
   */
  private void hedge() {
    nextHedge = null;
    if (isDone()) {
      return;
    }
    Set<ConnectionKey> busy = new HashSet<>();
    for (Invocation a : attempts) {
      ConnectionKey k = keyOf(a);
      if (k != null) {
        busy.add(k);
      }
    }
    Invocation hedge = newAttempt("HEDGE");
    CallPath.Start started =
        calls.startElsewhere(
            hedge, busy, () -> runtime.retryBudget().tryRetry(runtime.ticker().nanoTime()));
    if (started != CallPath.Start.STARTED) {
      hedge.cancel(false); // never sent: this only disarms its deadline
      noMoreHedges = true;
      if (started == CallPath.Start.NOT_PERMITTED) {
        runtime.reports().onHedgeRefused(hedge);
      }
      return;
    }
    track(hedge);
    runtime.reports().onHedge(settings, operation, attempts.size());
    armNextHedge();
  }

  /** The key of the connection {@code a} is on, else of the one it waits for; null for neither. */
  private static ConnectionKey keyOf(Invocation a) {
    ConnectionKey on = a.currentKey();
    if (on != null) {
      return on;
    }
    CallExtras e = a.extrasIfAny();
    return e == null ? null : e.awaited();
  }

  private void onAttemptDone(Invocation inv, byte[] reply, Throwable failure) {
    if (isDone()) {
      return;
    }
    if (failure == null) {
      cancelTheOthers(inv);
      super.complete(reply);
      return;
    }
    TetherException cause = CallFailures.unwrap(failure);
    if (cause instanceof FailedAnswerException) { // an answer, if a failed one: it wins too
      cancelTheOthers(inv);
      super.completeExceptionally(cause);
      return;
    }
    failed++;
    if (firstFailure == null) {
      firstFailure = cause;
    }
    // The call fails only once no attempt is left in flight and no hedge will follow.
    if (failed == attempts.size()
        && (noMoreHedges || attempts.size() >= settings.hedgingMaxAttempts())) {
      cancelHedgeTimer();
      super.completeExceptionally(firstFailure);
    } else if (failed == attempts.size()) {
      cancelHedgeTimer();
      hedge();
    }
  }

  private void cancelTheOthers(Invocation winner) {
    cancelHedgeTimer();
    for (Invocation a : attempts) {
      if (a != winner) {
        a.cancel(false);
      }
    }
  }

  private void cancelHedgeTimer() {
    if (nextHedge != null) {
      nextHedge.cancel();
      nextHedge = null;
    }
  }

  /** Cancelling the call cancels every attempt. */
  @Override
  public boolean cancel(boolean mayInterruptIfRunning) {
    boolean cancelled = super.cancel(mayInterruptIfRunning);
    if (cancelled) {
      runtime.control().execute(() -> cancelTheOthers(null));
    }
    return cancelled;
  }

  String describe() {
    return operation + " of " + settings.identity();
  }
}
