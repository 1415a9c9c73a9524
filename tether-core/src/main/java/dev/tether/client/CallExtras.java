package dev.tether.client;

import dev.tether.spi.Scheduler;
import dev.tether.spi.Ticker;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * What only some calls need, apart from the {@link Invocation} so that a plain call (no deadline,
 * no attempt timeout, no load balancing, no failed attempt) carries none of it: such a call is 64
 * bytes instead of 96. Made by the thread that starts or hands over the call, before any timer
 * runs, and never replaced.
 */
final class CallExtras {
  private static final VarHandle ATTEMPT;
  private static final VarHandle ROUTER;

  static {
    try {
      ATTEMPT = MethodHandles.lookup().findVarHandle(CallExtras.class, "attempt", Scheduler.Cancellable.class);
      ROUTER = MethodHandles.lookup().findVarHandle(CallExtras.class, "router", NodeRouter.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** The absolute invocation deadline on the runtime's ticker; 0 for none. */
  final long deadlineNanos;
  /** Non-null only while the invocation timeout is armed. */
  private Scheduler.Cancellable deadline;
  /** Non-null only while the current attempt's timeout is armed; taken with getAndSet to cancel it once. */
  @SuppressWarnings("unused")
  private volatile Scheduler.Cancellable attempt;
  /** Counts attempts, so a timer of an earlier attempt knows it is stale. */
  int attemptNumber;
  /**
   * Non-null while the current attempt was routed to a node by a load-balancing strategy; taken
   * with getAndSet by whichever thread ends the attempt, so the node hears of its end once.
   */
  @SuppressWarnings("unused")
  private volatile NodeRouter router;
  private long attemptStartNanos;
  /** What the call learned from failed attempts; null until one fails. */
  private RetryHistory history;
  /** The interceptor's view of the logical call; null without an interceptor (set before the call starts). */
  private TracedCall trace;
  /** Why this invocation's first attempt is made: null, or "HEDGE" for a hedge. */
  private String firstReason;
  /** False for a hedge's attempt, whose logical call ends with the hedged call, not with it. */
  private boolean endsTrace;
  /**
   * The metadata the current attempt carries when the interceptor added to it, else null. Set by
   * the thread handing the attempt over before the connection's loop encodes it, so the hand-over
   * publishes it.
   */
  private java.util.Map<String, String> attemptMetadata;

  CallExtras(long deadlineNanos) {
    this.deadlineNanos = deadlineNanos;
  }

  void armDeadline(Scheduler.Cancellable timer) {
    deadline = timer;
  }

  /** The invocation timeout fired: nothing is left to cancel. */
  void onDeadlinePassed() {
    deadline = null;
  }

  /** The call ended: its invocation timeout, if armed, never fires. */
  void cancelDeadline() {
    Scheduler.Cancellable t = deadline;
    if (t != null) {
      deadline = null;
      t.cancel();
    }
  }

  /** The number of the attempt that starts now. */
  int nextAttempt() {
    return ++attemptNumber;
  }

  void armAttemptTimer(Scheduler.Cancellable timer) {
    ATTEMPT.setVolatile(this, timer);
  }

  /** A load-balancing strategy chose the node of the next attempt. */
  void routedBy(NodeRouter r) {
    ROUTER.setVolatile(this, r);
  }

  /** The interceptor watches this invocation as (part of) {@code call}; before the call starts. */
  void traceAs(TracedCall call, String reason, boolean endsCall) {
    trace = call;
    firstReason = reason;
    endsTrace = endsCall;
  }

  /** The metadata of the current attempt when the interceptor added to it, else null. */
  java.util.Map<String, String> attemptMetadata() {
    return attemptMetadata;
  }

  /** The call ended with {@code failure} (null: success): the interceptor hears, unless a hedged call tells it. */
  void onCallEnded(Throwable failure) {
    if (trace != null && endsTrace) {
      trace.onEnd(failure);
    }
  }

  /**
   * The attempt goes on {@code c}: the interceptor hears why (the outcome of the attempt that
   * failed before it), its node's router hears, and its latency clock starts.
   */
  void onAttemptStarted(RequestChannel c, Ticker ticker) {
    if (trace != null) {
      java.util.List<dev.tether.Attempt> failed = history == null ? java.util.List.of() : history.attempts();
      String reason = failed.isEmpty() ? firstReason : failed.get(failed.size() - 1).outcome().name();
      attemptMetadata = trace.onAttempt(c, reason);
    }
    NodeRouter r = (NodeRouter) ROUTER.getVolatile(this);
    if (r != null) {
      attemptStartNanos = ticker.nanoTime();
      r.onCallStarted(c);
    }
  }

  /**
   * The attempt on {@code on} ended, {@code fault} when the node was to blame: its timer stops
   * and its router hears, once however many endings race.
   */
  void onAttemptEnded(RequestChannel on, boolean fault, Ticker ticker) {
    // A plain read first: most calls have neither, and an atomic swap per call shows at 1M calls/s.
    if (ATTEMPT.getVolatile(this) != null) {
      Scheduler.Cancellable timer = (Scheduler.Cancellable) ATTEMPT.getAndSet(this, (Scheduler.Cancellable) null);
      if (timer != null) {
        timer.cancel();
      }
    }
    if (ROUTER.getVolatile(this) == null) {
      return;
    }
    NodeRouter r = (NodeRouter) ROUTER.getAndSet(this, (NodeRouter) null);
    if (r != null && on != null) {
      r.onCallFinished(on, ticker.nanoTime() - attemptStartNanos, fault);
    }
  }

  /** The failure history, made now if there is none; by the thread that ends or hands over an attempt. */
  RetryHistory history() {
    if (history == null) {
      history = new RetryHistory();
    }
    return history;
  }

  /** The failure history, or null while no attempt failed. */
  RetryHistory historyIfAny() {
    return history;
  }
}
