package dev.tether.client;

import dev.tether.Attempt;
import dev.tether.CallPhase;
import dev.tether.TetherException;
import dev.tether.protocol.BodyCompression;
import dev.tether.protocol.EncodedNames;
import dev.tether.protocol.Request;
import dev.tether.protocol.Status;
import io.netty.buffer.ByteBuf;
import java.util.Map;
import java.util.concurrent.CancellationException;

/**
 * One call from the moment a proxy makes it until the runtime is done with it; it is also the
 * future the caller holds. Its parts: the caller's side in {@link ReplyFuture}, where its current
 * attempt is in {@link CallAttempt}, what only some calls need in {@link CallExtras} (made lazily,
 * so a plain call allocates nothing beside itself), the failure history in {@link RetryHistory},
 * and the pure mapping of what happened to an attempt in {@link AttemptOutcomes}, which {@link
 * RetryPolicy} judges under the at-most-once rule. A caller who cancels the future cancels the call
 * (CANCEL sent, slot freed).
 */
public final class Invocation extends CallAttempt {
  static final byte[] EMPTY = new byte[0];

  /** The proxy's binding, which also names its runtime and settings: one field for the three. */
  final ProxyBinding binding;

  final String operation;
  final byte[] body;

  /**
   * The REQUEST flags, a {@code u8} on the wire; a byte here keeps the call at 56 bytes, not 64.
   */
  private final byte flagBits;

  /**
   * What only some calls need (a deadline, an attempt timeout, a node router, a failure history);
   * null for a plain call. Volatile because a cancel or the deadline reads it from another thread
   * than the one that made it; made by whichever thread starts or hands over the call (one at a
   * time), and never replaced once made.
   */
  private volatile CallExtras extras;

  Invocation(ProxyBinding binding, String operation, byte[] body, int flags) {
    this(binding, operation, body, flags, binding.runtime.deadlineFor(binding.settings));
  }

  /**
   * @param deadlineNanos the absolute deadline on the runtime's ticker, 0 for none (a hedge shares
   *     its call's)
   */
  Invocation(ProxyBinding binding, String operation, byte[] body, int flags, long deadlineNanos) {
    this.binding = binding;
    this.operation = operation;
    this.body = body;
    this.flagBits = (byte) flags;
    if (deadlineNanos != 0) {
      extras =
          CallExtras.forDeadline(
              deadlineNanos, binding.settings.invocationTimeout(), binding.runtime.ticker());
    }
  }

  ProxySettings settings() {
    return binding.settings;
  }

  private CallHost runtime() {
    return binding.runtime;
  }

  /**
   * The call's extras, made now if it has none; only by the thread that starts or hands over the
   * call.
   */
  CallExtras extras() {
    CallExtras e = extras;
    if (e == null) {
      e = new CallExtras(0, 0);
      extras = e;
    }
    return e;
  }

  /** The REQUEST flags the caller chose (the wire's {@code COMPRESSED} is decided per attempt). */
  @Override
  int flags() {
    return flagBits & 0xFF;
  }

  @Override
  public boolean isOneway() {
    return (flagBits & Request.ONEWAY) != 0;
  }

  public boolean isIdempotent() {
    return (flagBits & Request.IDEMPOTENT) != 0;
  }

  /** Milliseconds left before the invocation timeout, 0 when there is none. */
  long remainingMillis() {
    CallExtras e = extras;
    return e == null ? 0 : e.remainingMillis(runtime().ticker());
  }

  /** The absolute invocation deadline in ticker nanos, or 0 when there is none. */
  long deadlineNanos() {
    CallExtras e = extras;
    return e == null ? 0 : e.deadlineNanos;
  }

  /** This call's REQUEST as a value (datagrams, batches); see {@link RequestWire}. */
  @Override
  Request toRequest() {
    return RequestWire.toRequest(this);
  }

  @Override
  void writeRequest(ByteBuf out, BodyCompression bodies, EncodedNames names) {
    RequestWire.encode(this, out, bodies, names);
  }

  /** The call's extras (its walk, the headers its interceptor added), or null for a plain call. */
  @Override
  CallExtras extrasIfAny() {
    return extras;
  }

  void armDeadline() {
    CallExtras e = extras;
    if (e != null && e.deadlineNanos != 0) {
      e.armDeadline(runtime(), this::onDeadline);
    }
  }

  /**
   * The call waits in {@code kind} from now (on {@code endpoint}, or null); its clock records it if
   * it has a deadline.
   */
  @Override
  void waitsIn(CallPhase.Kind kind, String endpoint) {
    CallExtras e = extras;
    if (e != null && e.deadlineNanos != 0) {
      e.waitIn(kind, endpoint, runtime().ticker().nanoTime());
    }
  }

  // ---- the attempt on a connection (its event loop) ----

  /** The call is about to be handed to {@code c}; called by the thread handing it over. */
  @Override
  void attachedTo(RequestChannel c) {
    moveTo(c);
    ProxySettings settings = settings();
    CallExtras e = extras;
    if (e == null && settings.attemptTimeout() == null) {
      return; // the plain call: nothing routed, nothing timed
    }
    if (e != null) {
      e.onAttemptStarted(c, runtime().ticker());
    }
    // A RESUME waits until the resume window ends: the CANCEL of a timed-out attempt would end the
    // stream it resumes.
    if (settings.attemptTimeout() != null && !isOneway() && (flags() & Request.RESUME) == 0) {
      extras().armAttemptTimeout(runtime(), this, c, settings.attemptTimeout());
    }
  }

  /** Which attempt runs now; the connection compares it with the one a timer was armed for. */
  @Override
  int attemptNumber() {
    CallExtras e = extras;
    return e == null ? 0 : e.attemptNumber;
  }

  /**
   * The attempt got no answer in time; its connection already freed its slot and sent CANCEL (on
   * the loop). The request was written, so the server may have run it.
   */
  @Override
  void onAttemptTimedOut() {
    blameTheNode(true);
    attemptFailed(
        Attempt.Outcome.ATTEMPT_TIMEOUT,
        AttemptOutcomes.attemptTimedOut(
            operation, settings().attemptTimeout(), describeConnection()));
  }

  /** The whole frame reached the kernel; a oneway call is complete now. */
  @Override
  void onSent() {
    markSent();
    if (isOneway()) {
      succeed(EMPTY);
    }
  }

  /**
   * The server answered (on the loop): OK ends the call; a failure ends it or the attempt, as its
   * status means.
   */
  @Override
  void onResponse(Status status, Map<String, String> metadata, byte[] body) {
    if (status == Status.OK) {
      succeed(body);
      return;
    }
    onFailedAnswer(
        AttemptOutcomes.failureOf(
            status, metadata, settings().identity(), operation, describeConnection()),
        AttemptOutcomes.blamesTheNode(status),
        AttemptOutcomes.ofAnswer(status));
  }

  /** The server proved it did not run the request: safe to retry, idempotent or not. */
  @Override
  void onRefused(String why) {
    attemptFailed(Attempt.Outcome.REFUSED, AttemptOutcomes.refused(why, operation));
  }

  /** The attempt ended before its frame was whole on the wire: the server cannot have run it. */
  @Override
  void onNotSent(Throwable cause) {
    lost(false, cause);
  }

  /** The connection closed while this call waited for its answer. */
  @Override
  void onConnectionLost(Throwable cause) {
    lost(wasSent(), cause);
  }

  private void lost(boolean wasSent, Throwable cause) {
    attemptFailed(
        AttemptOutcomes.ofLostConnection(wasSent),
        AttemptOutcomes.lostConnection(wasSent, describeConnection(), operation, cause));
  }

  /**
   * No connection was found for the attempt. A closing runtime connects nothing more; past the
   * deadline the call ends as its deadline ends it, whichever timer noticed first.
   */
  void onConnectFailed(TetherException cause) {
    if (runtime().isClosing()) {
      fail(AttemptOutcomes.closedBeforeConnected(describe(), cause));
    } else if (deadlinePassed()) {
      runtime().control().execute(() -> endByDeadline(cause));
    } else {
      attemptFailed(Attempt.Outcome.CONNECT_FAILED, cause);
    }
  }

  /**
   * An attempt failed: the retry policy decides, and this applies the decision. Invocation timeouts
   * and the answers that end a call (REMOTE_ERROR, PERMISSION_DENIED, DEADLINE_EXCEEDED) never come
   * here: they end the call directly.
   */
  @Override
  void attemptFailed(Attempt.Outcome outcome, TetherException cause) {
    State from = state();
    if (from == State.DONE) {
      return;
    }
    RequestChannel failedOn = connection();
    boolean pinned =
        RetryPolicy.pinned(settings().session() != null, (flags() & Request.RESUME) != 0, outcome);
    RetryPolicy.Decision decision =
        RetryPolicy.decide(
            outcome,
            isIdempotent(),
            pinned,
            CallPath.routesOverNodes(settings()),
            deadlinePassed(),
            () -> runtime().retryBudget().tryRetry(runtime().ticker().nanoTime()));
    record(outcome, cause.getMessage());
    switch (decision) {
      case FAIL -> fail(cause);
      case FAIL_BUDGET_SPENT -> {
        record(
            Attempt.Outcome.BUDGET_EXHAUSTED,
            "retry budget spent; failing with the original cause");
        runtime().reports().onBudgetRefusal(this, outcome, cause, endpointOf(failedOn));
        fail(cause);
      }
      case RETRY -> {
        if (!transition(from, State.UNSENT)) {
          return; // the deadline or a cancel ended the call meanwhile
        }
        endAttempt(failedOn);
        waitsIn(
            failedOn == null ? CallPhase.Kind.CONNECTING : CallPhase.Kind.AWAITING_REPLY,
            endpointOf(failedOn));
        history().onRetry(cause, failedOn == null ? null : failedOn.key());
        binding.forget(failedOn);
        moveTo(null);
        runtime().onRetry(this, outcome, cause, endpointOf(failedOn));
      }
    }
  }

  /** Tells the node router the attempt on its node is over, once however many endings race. */
  private void endAttempt(RequestChannel on) {
    AnswerBlame fault = takeNodeFault();
    CallExtras e = extras;
    if (e != null) { // the plain call has no timer and no router
      e.onAttemptEnded(on, fault, runtime().ticker());
    }
  }

  // ---- between attempts (control executor) ----

  /**
   * The failure history, made now if there is none; by the thread that ends or hands over an
   * attempt.
   */
  RetryHistory history() {
    return extras().history();
  }

  /** The failure history, or null while no attempt failed. */
  private RetryHistory failures() {
    CallExtras e = extras;
    return e == null ? null : e.historyIfAny();
  }

  private void record(Attempt.Outcome outcome, String reason) {
    RequestChannel c = connection();
    history().record(c == null ? "" : c.toString(), outcome, reason);
  }

  int retries() {
    RetryHistory r = failures();
    return r == null ? 0 : r.retries();
  }

  private boolean deadlinePassed() {
    long deadline = deadlineNanos();
    return deadline != 0 && runtime().ticker().nanoTime() - deadline >= 0;
  }

  // ---- endings ----

  void succeed(byte[] result) {
    if (finish()) {
      settle(result);
      ended(result, null);
    }
  }

  @Override
  void fail(Throwable t) {
    if (finish()) {
      Throwable ending = withHistory(t);
      settleExceptionally(ending);
      ended(null, ending);
    }
  }

  /** The caller hears of the outcome, then the client interceptor, if the call has one. */
  private void ended(byte[] answer, Throwable failure) {
    notifyEnded(answer, failure);
    CallExtras e = extras;
    if (e != null) {
      e.onCallEnded(failure);
    }
  }

  /**
   * The failure the caller sees: after failed attempts, a copy of {@code t} that lists them (the
   * exception may be shared with other calls, so it is never changed); else {@code t} itself.
   */
  private Throwable withHistory(Throwable t) {
    RetryHistory r = failures();
    return r != null && t instanceof TetherException te ? te.withAttempts(r.attempts()) : t;
  }

  /** Moves to DONE from wherever the call is; false when another ending got there first. */
  private boolean finish() {
    while (true) {
      State from = state();
      if (from == State.DONE) {
        return false;
      }
      if (transition(from, State.DONE)) {
        CallExtras e = extras;
        if (e != null) {
          e.cancelDeadline();
        }
        endAttempt(connection());
        return true;
      }
    }
  }

  /**
   * The invocation timeout passed (on the control executor): fail now, and free the attempt's slot.
   */
  private void onDeadline() {
    extras.onDeadlinePassed();
    endByDeadline(null);
  }

  /** Ends the call with its timeline (control executor); {@code seen} as in timedOut. */
  private void endByDeadline(TetherException seen) {
    if (!isFinished()) {
      abandon(extras.timedOut(operation, settings(), connection(), runtime(), seen));
    }
  }

  /**
   * The caller cancelled the future: the call is cancelled too. Its attempt's slot on the
   * connection is freed and the server is told with CANCEL.
   */
  @Override
  public boolean cancel(boolean mayInterruptIfRunning) {
    boolean cancelled = super.cancel(mayInterruptIfRunning);
    if (cancelled) {
      abandon(null);
      ended(null, new CancellationException());
    }
    return cancelled;
  }

  /** Ends the call without an answer; {@code cause} null when the caller cancelled it. */
  private void abandon(TetherException cause) {
    RequestChannel c = connection();
    if (!finish()) {
      return;
    }
    if (cause != null) {
      Throwable ending = withHistory(cause);
      settleExceptionally(ending);
      ended(null, ending);
    }
    if (c != null) {
      c.abandon(this);
    }
  }

  /** For trace lines and events: what the call is. */
  @Override
  String describe() {
    return operation + " of " + settings().identity();
  }
}
