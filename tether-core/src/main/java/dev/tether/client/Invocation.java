package dev.tether.client;

import dev.tether.Attempt;
import dev.tether.ConnectionLostException;
import dev.tether.InvocationTimeoutException;
import dev.tether.OperationNotFoundException;
import dev.tether.RemoteException;
import dev.tether.RequestRefusedException;
import dev.tether.ServiceNotFoundException;
import dev.tether.TetherException;
import dev.tether.codec.BlockingReply;
import dev.tether.protocol.BodyCompression;
import dev.tether.protocol.EncodedNames;
import dev.tether.protocol.FrameCodec;
import dev.tether.protocol.Request;
import dev.tether.protocol.Response;
import dev.tether.protocol.Status;
import dev.tether.spi.Scheduler;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.locks.LockSupport;

/**
 * One call from the moment a proxy makes it until the runtime is done with it; it is also the
 * future the caller holds. The runtime's view of the call is {@link State}, kept apart from the
 * future: a caller who completes the future changes only what the caller sees, and a caller who
 * cancels it cancels the call (CANCEL sent, slot freed). Whether the request may have reached the
 * server decides whether a failed attempt may be retried (DESIGN.md section 5, {@link RetryPolicy}).
 *
 * <p>Ownership: while an attempt is on a connection (WRITTEN) the connection's event loop
 * drives it; between attempts the runtime's control executor does. The deadline and a caller's
 * cancel may strike from any thread, so every transition is one compare-and-set in
 * {@link #transition}: exactly one thread makes each, and the attempt's end is reported once.
 */
public final class Invocation extends CompletableFuture<byte[]>
    implements BlockingReply, ChannelFutureListener {
  static final byte[] EMPTY = new byte[0];

  /** Where the call is, as the runtime sees it. */
  enum State {
    /** On no connection: before the first attempt or between attempts; the server cannot have it. */
    UNSENT,
    /**
     * Encoded into a connection's write batch; whether the whole frame reached the kernel (and so
     * the server may run it) is {@link #sent}, which the connection's loop keeps.
     */
    WRITTEN,
    /** Answered, failed, timed out or cancelled; terminal. */
    DONE
  }

  private static final VarHandle STATE;

  static {
    try {
      STATE = MethodHandles.lookup().findVarHandle(Invocation.class, "state", State.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** The proxy's binding, which also names its runtime and settings: one field for the three. */
  final ProxyBinding binding;
  final String operation;
  final byte[] body;
  final int flags;

  /**
   * Changed only through {@link #transition}, by compare-and-set on {@code STATE}: the connection's
   * loop, the deadline timer and a caller's cancel may each end the call, and exactly one wins.
   */
  @SuppressWarnings("unused")
  private volatile State state = State.UNSENT;
  /** Set on the connection's loop when the attempt is encoded. */
  int requestId;
  /**
   * True once the whole frame of the current attempt reached the kernel. Written and read on the
   * connection's loop only (a plain field: the hot path pays no atomic for it).
   */
  private boolean sent;
  /** Where the request frame ends in its write batch; set while the batch is written. */
  int batchEndOffset;
  /**
   * The connection of the current attempt, or null. Written by whichever thread hands the call
   * over (the caller on the hot path, else the control executor); volatile because the deadline
   * and a cancel read it from elsewhere to find the loop to abandon the attempt on.
   */
  private volatile RequestChannel connection;
  /**
   * Who is told when the call ends, besides the future's own dependents: the caller's thread
   * blocked in {@link #awaitReply()}, or a typed call's {@link DecodedReply} (set before the call
   * starts). Never both, since a typed asynchronous call's caller waits on its DecodedReply, which
   * keeps this call to itself; one field for the two keeps a call at 64 bytes. Volatile since the
   * completing loop reads it.
   */
  private volatile Object watcher;
  /**
   * What only some calls need (a deadline, an attempt timeout, a node router, a failure history);
   * null for a plain call. Volatile because a cancel or the deadline reads it from another thread
   * than the one that made it; made by whichever thread starts or hands over the call (one at a
   * time), and never replaced once made.
   */
  private volatile Extras extras;
  /**
   * True when the attempt ending now failed through the server's fault; set by the thread that
   * ends it, just before, and read by that thread.
   */
  private boolean nodeFault;

  Invocation(ProxyBinding binding, String operation, byte[] body, int flags) {
    this(binding, operation, body, flags, binding.runtime.deadlineFor(binding.settings));
  }

  /** @param deadlineNanos the absolute deadline on the runtime's ticker, 0 for none (a hedge shares its call's) */
  Invocation(ProxyBinding binding, String operation, byte[] body, int flags, long deadlineNanos) {
    this.binding = binding;
    this.operation = operation;
    this.body = body;
    this.flags = flags;
    if (deadlineNanos != 0) {
      extras = new Extras(deadlineNanos);
    }
  }

  ProxySettings settings() {
    return binding.settings;
  }

  private ClientRuntime runtime() {
    return binding.runtime;
  }

  /** The call's extras, made now if it has none; only by the thread that starts or hands over the call. */
  private Extras extras() {
    Extras e = extras;
    if (e == null) {
      e = new Extras(0);
      extras = e;
    }
    return e;
  }

  /**
   * Has {@code listener} (a typed call's {@link DecodedReply}) told of the outcome once this
   * future has it, which so needs no completion stage of its own; before the call starts only.
   */
  void reportTo(DecodedReply<?> listener) {
    watcher = listener;
  }

  private void report(byte[] answer, Throwable failure) {
    if (watcher instanceof DecodedReply<?> listener) {
      listener.accept(answer, failure);
    }
  }

  /** The one place the runtime's view of the call changes; false when another thread got there first. */
  private boolean transition(State from, State to) {
    return STATE.compareAndSet(this, from, to);
  }

  private State state() {
    return (State) STATE.getVolatile(this);
  }

  public boolean isOneway() {
    return (flags & Request.ONEWAY) != 0;
  }

  public boolean isIdempotent() {
    return (flags & Request.IDEMPOTENT) != 0;
  }

  /** True once the whole request frame of the current attempt reached the kernel. */
  public boolean wasSent() {
    return sent;
  }

  /** True once the runtime is done with the call, whatever the caller did with the future. */
  boolean isFinished() {
    return state() == State.DONE;
  }

  /** Milliseconds left before the invocation timeout, 0 when there is none. */
  long remainingMillis() {
    long deadline = deadlineNanos();
    if (deadline == 0) {
      return 0;
    }
    return Math.max(1, (deadline - runtime().ticker().nanoTime()) / 1_000_000);
  }

  /** The absolute invocation deadline in ticker nanos, or 0 when there is none. */
  long deadlineNanos() {
    Extras e = extras;
    return e == null ? 0 : e.deadlineNanos;
  }

  /**
   * Appends this call's REQUEST frame; the hot path, so no Request object is built. The body is
   * compressed when the proxy asks for it ({@code -z} or {@code withCompression(true)}) and
   * {@code bodies} says the server negotiated it and the body is worth it. {@code names} is the
   * connection's cache of the names' wire form.
   */
  void encodeRequest(ByteBuf out, BodyCompression bodies, EncodedNames names) {
    ProxySettings settings = settings();
    byte[] wire = body;
    int wireFlags = flags;
    if (settings.compress()) {
      byte[] packed = bodies.compressIfWorthIt(body);
      if (packed != null) {
        wire = packed;
        wireFlags |= Request.COMPRESSED;
      }
    }
    FrameCodec.encodeRequest(requestId, wireFlags, settings.identity(), operation, remainingMillis(), settings.metadata(), wire, names, out);
  }

  Request toRequest() {
    return new Request(requestId, flags, settings().identity(), operation, remainingMillis(), settings().metadata(), body);
  }

  void armDeadline() {
    Extras e = extras;
    if (e != null && e.deadlineNanos != 0) {
      ClientRuntime runtime = runtime();
      e.deadline = runtime.scheduleOnControl(this::onDeadline, Math.max(0, e.deadlineNanos - runtime.ticker().nanoTime()));
    }
  }

  /** The key of the connection the current attempt is on, or null between attempts. */
  ConnectionKey currentKey() {
    RequestChannel c = connection;
    return c == null ? null : c.key();
  }

  /** Endpoints this call must not use in its first round (a hedge avoids its siblings'). */
  void exclude(Set<ConnectionKey> keys) {
    tried().addAll(keys);
  }

  // ---- the attempt on a connection (its event loop) ----

  /** The call is about to be handed to {@code c}; called by the thread handing it over. */
  void attachedTo(RequestChannel c) {
    connection = c;
    ProxySettings settings = settings();
    Extras e = extras;
    if (e == null && settings.attemptTimeout() == null) {
      return; // the plain call: nothing routed, nothing timed
    }
    if (e != null) {
      NodeRouter r = (NodeRouter) Extras.ROUTER.getVolatile(e);
      if (r != null) {
        e.attemptStartNanos = runtime().ticker().nanoTime();
        r.onCallStarted(c);
      }
    }
    if (settings.attemptTimeout() != null && !isOneway()) {
      Extras t = extras();
      int attempt = ++t.attemptNumber;
      Extras.ATTEMPT.setVolatile(t, runtime().scheduleOnControl(
          () -> c.timeOutAttempt(this, attempt), settings.attemptTimeout()));
    }
  }

  /** Which attempt runs now; the connection compares it with the one a timer was armed for. */
  int attemptNumber() {
    Extras e = extras;
    return e == null ? 0 : e.attemptNumber;
  }

  /**
   * The attempt got no answer in time; its connection already freed its slot and sent CANCEL
   * (on the loop). The request was written, so the server may have run it.
   */
  void onAttemptTimedOut() {
    nodeFault = true;
    attemptFailed(Attempt.Outcome.ATTEMPT_TIMEOUT, new dev.tether.AttemptTimeoutException(
        operation + " got no answer within the attempt timeout of " + settings().attemptTimeout().toMillis()
            + " ms on " + describeConnection() + "; the server may have run it"));
  }

  void routedBy(NodeRouter r) {
    Extras.ROUTER.setVolatile(extras(), r);
  }

  /**
   * The connection's writer takes the call into a batch; false when the runtime is already done
   * with it (timed out or cancelled while queued), and then it must not be written.
   */
  boolean beginWriting() {
    sent = false;
    return transition(State.UNSENT, State.WRITTEN);
  }

  /** The whole frame reached the kernel; a oneway call is complete now. */
  void onSent() {
    sent = true;
    if (isOneway()) {
      succeed(EMPTY);
    }
  }

  void onResponse(Status status, Map<String, String> metadata, byte[] body) {
    switch (status) {
      case OK -> succeed(body);
      case REMOTE_ERROR -> fail(new RemoteException(
          metadata.getOrDefault(Response.ERROR_TYPE, "unknown"),
          metadata.getOrDefault(Response.ERROR_MESSAGE, "")));
      case SERVICE_NOT_FOUND -> fail(new ServiceNotFoundException(
          "no service \"" + settings().identity() + "\" on " + describeConnection()));
      case OPERATION_NOT_FOUND -> fail(new OperationNotFoundException(
          "service \"" + settings().identity() + "\" has no operation \"" + operation + "\" on " + describeConnection()));
      case REFUSED -> onRefused("the server refused the request on " + describeConnection());
      case DEADLINE_EXCEEDED -> failByNode(new InvocationTimeoutException(
          "the server saw the deadline of " + operation + " pass before running it"));
      case INTERNAL -> {
        nodeFault = true;
        attemptFailed(Attempt.Outcome.SERVER_FAILED, new TetherException(
            "the server failed: " + metadata.getOrDefault(Response.ERROR_MESSAGE, "internal error")));
      }
      case PERMISSION_DENIED -> fail(new dev.tether.PermissionDeniedException("the server refused " + operation
          + " of \"" + settings().identity() + "\": " + metadata.getOrDefault(Response.ERROR_MESSAGE, "permission denied")));
    }
  }

  /** The server proved it did not run the request: safe to retry, idempotent or not. */
  void onRefused(String why) {
    attemptFailed(Attempt.Outcome.REFUSED, new RequestRefusedException(why + " (" + operation + ")"));
  }

  /** The attempt ended before its frame was whole on the wire: the server cannot have run it. */
  void onNotSent(Throwable cause) {
    attemptFailed(Attempt.Outcome.NOT_SENT, new ConnectionLostException(
        "connection " + describeConnection() + " failed before " + operation + " was sent: " + message(cause),
        false, cause));
  }

  /** The connection closed while this call waited for its answer. */
  void onConnectionLost(Throwable cause) {
    if (!sent) {
      onNotSent(cause);
      return;
    }
    attemptFailed(Attempt.Outcome.LOST_AFTER_SEND, new ConnectionLostException(
        "connection " + describeConnection() + " lost after " + operation + " was sent: " + message(cause),
        true, cause));
  }

  /** No connection could be found for the attempt (the walk over every endpoint and round failed). */
  void onConnectFailed(TetherException cause) {
    attemptFailed(Attempt.Outcome.CONNECT_FAILED, cause);
  }

  private static String message(Throwable t) {
    return t.getMessage() != null ? t.getMessage() : t.toString();
  }

  /**
   * An attempt failed: the retry policy decides, and this applies the decision. Invocation
   * timeouts and the server's own answers (REMOTE_ERROR, SERVICE/OPERATION_NOT_FOUND) never come
   * here: they end the call directly.
   */
  private void attemptFailed(Attempt.Outcome outcome, TetherException cause) {
    State from = state();
    if (from == State.DONE) {
      return;
    }
    RequestChannel failedOn = connection;
    RetryPolicy.Decision decision = RetryPolicy.decide(outcome, isIdempotent(), settings().session() != null,
        deadlinePassed(), () -> runtime().retryBudget().tryRetry(runtime().ticker().nanoTime()));
    record(outcome, cause.getMessage());
    switch (decision) {
      case FAIL -> fail(cause);
      case FAIL_BUDGET_SPENT -> {
        record(Attempt.Outcome.BUDGET_EXHAUSTED, "retry budget spent; failing with the original cause");
        runtime().reports().onBudgetRefusal(this, outcome, cause, endpointOf(failedOn));
        fail(cause);
      }
      case RETRY -> {
        if (!transition(from, State.UNSENT)) {
          return; // the deadline or a cancel ended the call meanwhile
        }
        endAttempt(failedOn);
        retryState().retries++;
        retryState().latestCause = cause;
        if (failedOn != null) {
          tried().add(failedOn.key());
        }
        binding.forget(failedOn);
        connection = null;
        runtime().onRetry(this, outcome, cause, endpointOf(failedOn));
      }
    }
  }

  /** Tells the node router the attempt on its node is over, once however many endings race. */
  private void endAttempt(RequestChannel on) {
    boolean fault = nodeFault;
    nodeFault = false;
    Extras e = extras;
    if (e == null) {
      return; // the plain call: no timer, no router
    }
    // A plain read first: most calls have neither, and an atomic swap per call shows at 1M calls/s.
    if (Extras.ATTEMPT.getVolatile(e) != null) {
      Scheduler.Cancellable timer = (Scheduler.Cancellable) Extras.ATTEMPT.getAndSet(e, (Scheduler.Cancellable) null);
      if (timer != null) {
        timer.cancel();
      }
    }
    if (Extras.ROUTER.getVolatile(e) == null) {
      return;
    }
    NodeRouter r = (NodeRouter) Extras.ROUTER.getAndSet(e, (NodeRouter) null);
    if (r != null && on != null) {
      r.onCallFinished(on, runtime().ticker().nanoTime() - e.attemptStartNanos, fault);
    }
  }

  // ---- between attempts (control executor) ----

  private RetryState retryState() {
    Extras e = extras();
    if (e.retryState == null) {
      e.retryState = new RetryState();
    }
    return e.retryState;
  }

  /** The failure history, or null while no attempt failed. */
  private RetryState failures() {
    Extras e = extras;
    return e == null ? null : e.retryState;
  }

  private Set<ConnectionKey> tried() {
    return retryState().triedThisRound;
  }

  Set<ConnectionKey> triedKeys() {
    return tried();
  }

  /** The candidates this round has not failed on yet, in selection order. */
  List<Candidate> untried(List<Candidate> candidates) {
    List<Candidate> out = new ArrayList<>(candidates.size());
    for (Candidate c : candidates) {
      if (!tried().contains(c.key(settings().connectionId()))) {
        out.add(c);
      }
    }
    return out;
  }

  /** A retry could not connect to any untried endpoint: they count as tried; go on or give up. */
  void onRetryConnectFailed(List<Candidate> candidates, TetherException cause) {
    record(Attempt.Outcome.CONNECT_FAILED, cause.getMessage());
    retryState().latestCause = cause;
    for (Candidate c : candidates) {
      tried().add(c.key(settings().connectionId()));
    }
    if (deadlinePassed()) {
      fail(cause);
    } else {
      runtime().retry(this);
    }
  }

  int round() {
    RetryState r = failures();
    return r == null ? 0 : r.round;
  }

  void beginNextRound() {
    retryState().round++;
    tried().clear();
  }

  void failWithLatestCause() {
    fail(retryState().latestCause);
  }

  TetherException latestCause() {
    return retryState().latestCause;
  }

  /** True the first time only: a call goes back to its configured servers at most once. */
  boolean takeConfiguredFallback() {
    RetryState r = retryState();
    if (r.configuredTried) {
      return false;
    }
    r.configuredTried = true;
    return true;
  }

  private void record(Attempt.Outcome outcome, String reason) {
    RequestChannel c = connection;
    retryState().attempts.add(new Attempt(c == null ? "" : c.toString(), outcome, reason));
  }

  int retries() {
    RetryState r = failures();
    return r == null ? 0 : r.retries;
  }

  /** The failure history of one call; made on its first failed attempt. */
  private static final class RetryState {
    int retries;
    /** Which round of attempts runs: 0 first, one more per retry interval. */
    int round;
    /** Connections this round's attempts failed on. */
    final Set<ConnectionKey> triedThisRound = new HashSet<>();
    /** Why the latest attempt failed. */
    TetherException latestCause;
    /** True once the call, its cluster view exhausted, went back to the configured servers. */
    boolean configuredTried;
    final List<Attempt> attempts = new ArrayList<>(2);
  }

  private boolean deadlinePassed() {
    long deadline = deadlineNanos();
    return deadline != 0 && runtime().ticker().nanoTime() - deadline >= 0;
  }

  // ---- endings ----

  void succeed(byte[] result) {
    if (finish()) {
      super.complete(result);
      wakeWaiter();
      report(result, null);
    }
  }

  /** The server answered but failed the call itself: the node is at fault, not the connection. */
  private void failByNode(TetherException t) {
    nodeFault = true;
    fail(t);
  }

  void fail(Throwable t) {
    if (finish()) {
      RetryState r = failures();
      if (r != null && t instanceof TetherException te) {
        te.withAttempts(r.attempts);
      }
      super.completeExceptionally(t);
      wakeWaiter();
      report(null, t);
    }
  }

  /** Moves to DONE from wherever the call is; false when another ending got there first. */
  private boolean finish() {
    while (true) {
      State from = state();
      if (from == State.DONE) {
        return false;
      }
      if (transition(from, State.DONE)) {
        cancelDeadline();
        endAttempt(connection);
        return true;
      }
    }
  }

  /** The invocation timeout passed (on the control executor): fail now, and free the attempt's slot. */
  private void onDeadline() {
    extras.deadline = null;
    abandon(new InvocationTimeoutException(operation + " got no answer "
        + (settings().invocationTimeout() != null
            ? "within " + settings().invocationTimeout().toMillis() + " ms"
            : "before the deadline it inherited from the service that made it")
        + " on " + describeConnection()));
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
      wakeWaiter();
      report(null, new CancellationException());
    }
    return cancelled;
  }

  /** Ends the call without an answer; {@code cause} null when the caller cancelled it. */
  private void abandon(TetherException cause) {
    RequestChannel c = connection;
    if (!finish()) {
      return;
    }
    if (cause != null) {
      RetryState r = failures();
      if (r != null) {
        cause.withAttempts(r.attempts);
      }
      super.completeExceptionally(cause);
      wakeWaiter();
      report(null, cause);
    }
    if (c != null) {
      c.abandon(this);
    }
  }

  /** Outside callers may not replace the outcome the runtime decides. */
  @Override
  public void obtrudeValue(byte[] value) {
    throw new UnsupportedOperationException("a Tether call's outcome cannot be replaced");
  }

  @Override
  public void obtrudeException(Throwable ex) {
    throw new UnsupportedOperationException("a Tether call's outcome cannot be replaced");
  }

  private void cancelDeadline() {
    Extras all = extras;
    Scheduler.Cancellable t = all == null ? null : all.deadline;
    if (t != null) {
      all.deadline = null;
      t.cancel();
    }
  }

  private void wakeWaiter() {
    if (watcher instanceof Thread w) {
      LockSupport.unpark(w);
    }
  }

  /**
   * Waits for the answer parked on this call itself, so a blocking call allocates no waiter
   * node; rethrows Tether's exceptions unwrapped.
   */
  @Override
  public byte[] awaitReply() {
    // A call that reports to a listener keeps the field for it; its caller waits as join() does.
    if (!isDone() && watcher == null) {
      watcher = Thread.currentThread();
      while (!isDone()) {
        LockSupport.park(this);
        if (Thread.interrupted()) {
          watcher = null;
          Thread.currentThread().interrupt();
          throw new TetherException("interrupted while waiting for " + operation);
        }
      }
      watcher = null;
    }
    try {
      return join();
    } catch (CompletionException | CancellationException e) {
      Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
      throw cause instanceof RuntimeException re ? re : new TetherException(String.valueOf(cause), cause);
    }
  }

  /**
   * The write of a batch holding only this call finished: on success the whole frame reached the
   * kernel; on failure it did not leave whole, and the connection must close.
   */
  @Override
  public void operationComplete(ChannelFuture future) {
    if (future.isSuccess()) {
      onSent();
    } else if (connection instanceof ClientConnection c) {
      c.onWriteFailed(future.cause());
    }
  }

  /**
   * What only some calls need, apart so that a plain call (no deadline, no attempt timeout, no
   * load balancing, no failed attempt) carries none of its fields: such a call is 64 bytes instead
   * of 96. Made by the thread that starts or hands over the call, before any timer runs.
   */
  private static final class Extras {
    static final VarHandle ATTEMPT;
    static final VarHandle ROUTER;

    static {
      try {
        ATTEMPT = MethodHandles.lookup().findVarHandle(Extras.class, "attempt", Scheduler.Cancellable.class);
        ROUTER = MethodHandles.lookup().findVarHandle(Extras.class, "router", NodeRouter.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    /** The absolute invocation deadline on the runtime's ticker; 0 for none. */
    final long deadlineNanos;
    /** Non-null only while the invocation timeout is armed. */
    Scheduler.Cancellable deadline;
    /** Non-null only while the current attempt's timeout is armed; taken with getAndSet to cancel it once. */
    @SuppressWarnings("unused")
    volatile Scheduler.Cancellable attempt;
    /** Counts attempts, so a timer of an earlier attempt knows it is stale. */
    int attemptNumber;
    /**
     * Non-null while the current attempt was routed to a node by a load-balancing strategy; taken
     * with getAndSet by whichever thread ends the attempt, so the node hears of its end once.
     */
    @SuppressWarnings("unused")
    volatile NodeRouter router;
    long attemptStartNanos;
    /** What the call learned from failed attempts; null until one fails. */
    RetryState retryState;

    Extras(long deadlineNanos) {
      this.deadlineNanos = deadlineNanos;
    }
  }

  private static String endpointOf(RequestChannel c) {
    return c instanceof BaseConnection b ? b.endpointText() : null;
  }

  private String describeConnection() {
    RequestChannel c = connection;
    return c == null ? "no connection" : c.toString();
  }

  /** For trace lines and events: what the call is. */
  String describe() {
    return operation + " of " + settings().identity();
  }
}
