package dev.tether.client;

import dev.tether.Attempt;
import dev.tether.CallPhase;
import dev.tether.InvocationTimeoutException;
import dev.tether.TetherException;
import dev.tether.spi.Scheduler;
import dev.tether.spi.Ticker;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

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
      ATTEMPT =
          MethodHandles.lookup()
              .findVarHandle(CallExtras.class, "attempt", Scheduler.Cancellable.class);
      ROUTER = MethodHandles.lookup().findVarHandle(CallExtras.class, "router", NodeRouter.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** The absolute invocation deadline on the runtime's ticker; 0 for none. */
  final long deadlineNanos;

  /**
   * When the call was made, on the runtime's ticker; where its timeline starts. 0 without a
   * deadline.
   */
  final long startNanos;

  /**
   * Where the call's time went; null until it waits (connecting, in a backlog, between rounds), so
   * a call answered on its cached connection never makes one. Made by the thread holding the call;
   * read at the deadline on the control executor, hence volatile (no hop on the hot path).
   */
  private volatile CallTimeline timeline;

  /** Non-null only while the invocation timeout is armed. */
  private Scheduler.Cancellable deadline;

  /**
   * Non-null only while the current attempt's timeout is armed; taken with getAndSet to cancel it
   * once: volatile for that atomic update, since the attempt's end and its timer race on different
   * threads.
   */
  @SuppressWarnings("unused")
  private volatile Scheduler.Cancellable attempt;

  /** Counts attempts, so a timer of an earlier attempt knows it is stale. */
  int attemptNumber;

  /**
   * Non-null while the current attempt was routed to a node by a load-balancing strategy; taken
   * with getAndSet by whichever thread ends the attempt, so the node hears of its end once
   * (volatile for that atomic update: the loop, the deadline and a cancel may each end it).
   */
  @SuppressWarnings("unused")
  private volatile NodeRouter router;

  private long attemptStartNanos;

  /** What the call learned from failed attempts; null until one fails. */
  private RetryHistory history;

  /** The call's walk over its endpoints; null while it needed none. */
  private EndpointWalk walk;

  /**
   * The key of the connection the call waits for while it is on none (dialled for it, or still
   * connecting when it joined), else null: a hedge keeps away from it. Volatile: set by the thread
   * finding the call's connection, read by its hedged call on the control executor.
   */
  private volatile ConnectionKey awaited;

  /**
   * The interceptor's view of the logical call; null without an interceptor (set before the call
   * starts).
   */
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
  private Map<String, String> attemptMetadata;

  CallExtras(long deadlineNanos, long startNanos) {
    this.deadlineNanos = deadlineNanos;
    this.startNanos = startNanos;
  }

  /**
   * The extras of a call made now with a deadline; {@code own} is its own invocation timeout, or
   * null.
   */
  static CallExtras forDeadline(long deadlineNanos, Duration own, Ticker ticker) {
    // Its own timeout gives the start without a clock read; an inherited deadline does not.
    return new CallExtras(
        deadlineNanos, own != null ? deadlineNanos - own.toNanos() : ticker.nanoTime());
  }

  /** Milliseconds left before the invocation timeout, at least 1; 0 when there is none. */
  long remainingMillis(Ticker ticker) {
    if (deadlineNanos == 0) {
      return 0;
    }
    return Math.max(1, (deadlineNanos - ticker.nanoTime()) / 1_000_000);
  }

  /** The timeline, or null while the call never waited. */
  CallTimeline timelineIfAny() {
    return timeline;
  }

  /**
   * The call's invocation timeout, saying where its time went (control executor), phase by phase.
   * The timeline as the deadline finds it: without a recorded wait, the call spent its whole time
   * on {@code on} (or, without a connection, connecting); a call still without a connection learns
   * from {@code dialing} which endpoint it was connecting to or backing off from.
   */
  InvocationTimeoutException timedOut(
      String what, RequestChannel on, Supplier<CallTimeline.Wait> dialing, long nowNanos) {
    CallTimeline t = timelineAtDeadline(on, dialing);
    return new InvocationTimeoutException(what + ": " + t.describe(nowNanos), t.phases(nowNanos));
  }

  /**
   * {@link #timedOut(String, RequestChannel, Supplier, long)} for a call of {@code operation}
   * through {@code settings} on {@code host}. One that waited for ready without a connection says
   * so in the cause, the same whichever timer noticed the deadline first, with {@code seen} (null:
   * none), the failure its wait met.
   */
  InvocationTimeoutException timedOut(
      String operation,
      ProxySettings settings,
      RequestChannel on,
      CallHost host,
      TetherException seen) {
    InvocationTimeoutException timeout =
        timedOut(
            AttemptOutcomes.noAnswer(operation, settings.invocationTimeout()),
            on,
            () -> host.waitAmong(settings.fixedEndpoints()),
            host.ticker().nanoTime());
    if (on == null && settings.waitForReady()) {
      TetherException cause = AttemptOutcomes.notReady(settings.identity());
      if (seen != null) {
        cause.addSuppressed(seen);
      }
      timeout.initCause(cause);
    }
    return timeout;
  }

  private CallTimeline timelineAtDeadline(RequestChannel on, Supplier<CallTimeline.Wait> dialing) {
    CallTimeline t = timeline;
    if (t == null) {
      t =
          new CallTimeline(
              on == null ? CallPhase.Kind.CONNECTING : CallPhase.Kind.AWAITING_REPLY,
              CallAttempt.endpointOf(on),
              startNanos);
      timeline = t;
    }
    CallPhase.Kind last = t.lastKind();
    if (on == null && (last == CallPhase.Kind.CONNECTING || last == CallPhase.Kind.BACKING_OFF)) {
      CallTimeline.Wait w = dialing.get();
      if (w != null) {
        t.clarifyLast(w);
      }
    }
    return t;
  }

  /**
   * The call waits in {@code kind} from now: the timeline gains the phase, or is made with it (its
   * first phase then starts when the call was made). Only for calls with a deadline.
   */
  void waitIn(CallPhase.Kind kind, String endpoint, long nowNanos) {
    CallTimeline t = timeline;
    if (t == null) {
      timeline = new CallTimeline(kind, endpoint, startNanos);
    } else {
      t.enter(kind, endpoint, nowNanos);
    }
  }

  /**
   * Arms the invocation timeout, which runs {@code onDeadline} on {@code host}'s control executor.
   */
  void armDeadline(CallHost host, Runnable onDeadline) {
    deadline =
        host.scheduleOnControl(onDeadline, Math.max(0, deadlineNanos - host.ticker().nanoTime()));
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

  /**
   * Arms the timeout of the attempt of {@code inv} that starts now on {@code c}: when it passes,
   * {@code c} times that attempt out (unless a later one runs by then).
   */
  void armAttemptTimeout(CallHost host, Invocation inv, RequestChannel c, Duration timeout) {
    int number = ++attemptNumber;
    ATTEMPT.setVolatile(this, host.scheduleOnControl(() -> c.timeOutAttempt(inv, number), timeout));
  }

  /** A load-balancing strategy chose the node of the next attempt. */
  void routedBy(NodeRouter r) {
    ROUTER.setVolatile(this, r);
  }

  /** The router of the attempt now on a node, or null (no node group, or between attempts). */
  NodeRouter router() {
    return (NodeRouter) ROUTER.getVolatile(this);
  }

  /** The interceptor watches this invocation as (part of) {@code call}; before the call starts. */
  void traceAs(TracedCall call, String reason, boolean endsCall) {
    trace = call;
    firstReason = reason;
    endsTrace = endsCall;
  }

  /** The metadata of the current attempt when the interceptor added to it, else null. */
  Map<String, String> attemptMetadata() {
    return attemptMetadata;
  }

  /**
   * The call ended with {@code failure} (null: success): the interceptor hears, unless a hedged
   * call tells it.
   */
  void onCallEnded(Throwable failure) {
    if (trace != null && endsTrace) {
      trace.onEnd(failure);
    }
  }

  /**
   * The attempt goes on {@code c}: the interceptor hears why (the outcome of the attempt that
   * failed before it), its node's router hears, its latency clock starts, the call's timeline moves
   * there.
   */
  void onAttemptStarted(RequestChannel c, Ticker ticker) {
    awaited = null; // the call is on c now
    if (trace != null) {
      List<Attempt> failed = history == null ? List.of() : history.attempts();
      String reason =
          failed.isEmpty() ? firstReason : failed.get(failed.size() - 1).outcome().name();
      attemptMetadata = trace.onAttempt(c, reason);
    }
    CallTimeline t = timeline;
    if (t != null) { // the call waited before: its clock now runs on c
      t.enter(CallPhase.Kind.AWAITING_REPLY, CallAttempt.endpointOf(c), ticker.nanoTime());
    }
    NodeRouter r = (NodeRouter) ROUTER.getVolatile(this);
    if (r != null) {
      attemptStartNanos = ticker.nanoTime();
      r.onCallStarted(c);
    }
  }

  /**
   * The attempt on {@code on} ended, {@code fault} when the node was to blame: its timer stops and
   * its router hears, once however many endings race.
   */
  void onAttemptEnded(RequestChannel on, AnswerBlame fault, Ticker ticker) {
    // A plain read first: most calls have neither, and an atomic swap per call shows at 1M calls/s.
    if (ATTEMPT.getVolatile(this) != null) {
      Scheduler.Cancellable timer =
          (Scheduler.Cancellable) ATTEMPT.getAndSet(this, (Scheduler.Cancellable) null);
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

  /**
   * The failure history, made now if there is none; by the thread that ends or hands over an
   * attempt.
   */
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

  /** The call's walk over its endpoints, or null while it needed none. */
  EndpointWalk walk() {
    return walk;
  }

  /** Set once, by the thread that holds the call when it first needs a walk. */
  void walk(EndpointWalk w) {
    walk = w;
  }

  /** The key of the connection the call waits for while it is on none, or null. */
  ConnectionKey awaited() {
    return awaited;
  }

  /**
   * {@code call} (null: none) now waits for a connection of {@code key} (null: for none, that one
   * failed). Noted only in a call that has extras already: only a hedge reads it, and every hedged
   * attempt has them, so a plain call that dials makes none for it.
   */
  static void noteAwaited(Invocation call, ConnectionKey key) {
    CallExtras e = call == null ? null : call.extrasIfAny();
    if (e != null) {
      e.awaited = key;
    }
  }
}
