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
import dev.tether.protocol.FrameCodec;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import java.util.concurrent.locks.LockSupport;
import dev.tether.protocol.Request;
import io.netty.buffer.ByteBuf;
import dev.tether.protocol.Response;
import dev.tether.protocol.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import dev.tether.spi.Scheduler;

/**
 * One call from the moment a proxy makes it until it completes; it is its own future. It knows
 * whether its request may have reached the server ({@link #wasSent()}), which decides whether a
 * failed attempt may be retried (DESIGN.md section 5). Completion runs callbacks on the event
 * loop that delivered the outcome, so they must not block.
 */
public final class Invocation extends CompletableFuture<byte[]>
    implements BlockingReply, ChannelFutureListener {
  static final byte[] EMPTY = new byte[0];

  private final ClientRuntime runtime;
  final ProxySettings settings;
  final ProxyBinding binding;
  final String operation;
  final byte[] body;
  final int flags;
  private final long deadlineNanos;

  // The fields below change on the event loop of the connection carrying the current attempt.
  int requestId;
  /** True once the whole request frame was handed to the kernel on the current attempt. */
  private boolean sent;
  /** Where the request frame ends in its write batch; set while the batch is written. */
  int batchEndOffset;
  /** What the call learned from failed attempts; null until one fails, so a clean call allocates none. */
  private RetryState retryState;
  /** Non-null while the current attempt was routed to a node by a load-balancing strategy. */
  private volatile NodeRouter router;
  private long attemptStartNanos;
  /** The caller blocked in {@link #awaitReply()}; null when nobody waits that way. */
  private volatile Thread waiter;

  /** Non-null only while an invocation timeout is armed. */
  private volatile Scheduler.Cancellable timeoutTask;
  /** Non-null only while an attempt is on a connection. */
  private volatile RequestChannel connection;

  Invocation(ClientRuntime runtime, ProxySettings settings, ProxyBinding binding, String operation, byte[] body, int flags) {
    this.runtime = runtime;
    this.settings = settings;
    this.binding = binding;
    this.operation = operation;
    this.body = body;
    this.flags = flags;
    this.deadlineNanos =
        settings.invocationTimeout() == null ? 0 : runtime.ticker().nanoTime() + settings.invocationTimeout().toNanos();
  }

  public boolean isOneway() {
    return (flags & Request.ONEWAY) != 0;
  }

  public boolean isIdempotent() {
    return (flags & Request.IDEMPOTENT) != 0;
  }

  public boolean wasSent() {
    return sent;
  }

  /** Milliseconds left before the invocation timeout, 0 when there is none. */
  long remainingMillis() {
    if (deadlineNanos == 0) {
      return 0;
    }
    return Math.max(1, (deadlineNanos - runtime.ticker().nanoTime()) / 1_000_000);
  }

  /** Appends this call's REQUEST frame; the hot path, so no Request object is built. */
  void encodeRequest(ByteBuf out) {
    FrameCodec.encodeRequest(requestId, flags, settings.identity(), operation, remainingMillis(), settings.metadata(), body, out);
  }

  Request toRequest() {
    return new Request(requestId, flags, settings.identity(), operation, remainingMillis(), settings.metadata(), body);
  }

  void armTimeout() {
    if (settings.invocationTimeout() != null && !isDone()) {
      timeoutTask = runtime.schedule(this::onTimeout, settings.invocationTimeout());
    }
  }

  void attachedTo(RequestChannel c) {
    connection = c;
    sent = false;
    NodeRouter r = router;
    if (r != null) {
      attemptStartNanos = runtime.ticker().nanoTime();
      r.onCallStarted(c);
    }
  }

  void routedBy(NodeRouter r) {
    router = r;
  }

  /** Tells the node router the attempt on its node is over, once. */
  private void endAttempt() {
    NodeRouter r = router;
    RequestChannel c = connection;
    if (r != null && c != null) {
      router = null;
      r.onCallFinished(c, runtime.ticker().nanoTime() - attemptStartNanos);
    }
  }

  /** The absolute invocation deadline in ticker nanos, or 0 when there is none. */
  long deadlineNanos() {
    return deadlineNanos;
  }

  java.util.Set<ConnectionKey> triedKeys() {
    return tried();
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
          "no service \"" + settings.identity() + "\" on " + describeConnection()));
      case OPERATION_NOT_FOUND -> fail(new OperationNotFoundException(
          "service \"" + settings.identity() + "\" has no operation \"" + operation + "\" on " + describeConnection()));
      case REFUSED -> onRefused("the server refused the request on " + describeConnection());
      case DEADLINE_EXCEEDED -> fail(new InvocationTimeoutException(
          "the server saw the deadline of " + operation + " pass before running it"));
      case INTERNAL -> fail(new TetherException(
          "the server failed: " + metadata.getOrDefault(Response.ERROR_MESSAGE, "internal error")));
      case PERMISSION_DENIED -> fail(new dev.tether.PermissionDeniedException("the server refused " + operation
          + " of \"" + settings.identity() + "\": " + metadata.getOrDefault(Response.ERROR_MESSAGE, "permission denied")));
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

  /** No connection could be found for the attempt. */
  void onConnectFailed(TetherException cause) {
    attemptFailed(Attempt.Outcome.CONNECT_FAILED, cause);
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

  private static String message(Throwable t) {
    return t.getMessage() != null ? t.getMessage() : t.toString();
  }

  /**
   * DESIGN.md section 5, one rule per line. Invocation timeouts and the server's own answers
   * (REMOTE_ERROR, SERVICE/OPERATION_NOT_FOUND) never come here: they fail the call directly.
   */
  private void attemptFailed(Attempt.Outcome outcome, TetherException cause) {
    if (isDone()) {
      return;
    }
    record(outcome, cause.getMessage());
    endAttempt();
    // In a session: the server's state for it lives on that connection; never move silently.
    if (settings.session() != null) {
      fail(cause);
      return;
    }
    // Sent, connection lost, not idempotent: the server may have run it; never run it twice.
    if (outcome == Attempt.Outcome.LOST_AFTER_SEND && !isIdempotent()) {
      fail(cause);
      return;
    }
    // Connect failed: establishment already walked every endpoint for every round.
    if (outcome == Attempt.Outcome.CONNECT_FAILED) {
      fail(cause);
      return;
    }
    // Not sent, refused, or lost while idempotent: a retry is safe. Is it allowed?
    if (deadlinePassed()) {
      fail(cause);
      return;
    }
    if (!runtime.retryBudget().tryRetry(runtime.ticker().nanoTime())) {
      record(Attempt.Outcome.BUDGET_EXHAUSTED, "retry budget spent; failing with the original cause");
      runtime.countBudgetRefusal();
      runtime.events().emit(dev.tether.observe.TetherEvent.Kind.RETRY_BUDGET_EXHAUSTED, endpointText(),
          "not retrying " + operation + " of " + settings.identity() + " after " + outcome + ": retry budget spent", cause);
      fail(cause);
      return;
    }
    retryState().retries++;
    runtime.countRetry();
    runtime.events().emit(dev.tether.observe.TetherEvent.Kind.RETRY, endpointText(),
        "retrying " + operation + " of " + settings.identity() + " (retry " + retries() + ") after " + outcome, cause);
    runtime.traceRetry(this, outcome, cause);
    RequestChannel failedOn = connection;
    if (failedOn != null) {
      tried().add(failedOn.key());
    }
    binding.forget(failedOn);
    connection = null;
    retryState().latestCause = cause;
    runtime.retry(this);
  }

  private RetryState retryState() {
    if (retryState == null) {
      retryState = new RetryState();
    }
    return retryState;
  }

  private java.util.Set<ConnectionKey> tried() {
    return retryState().triedThisRound;
  }

  /** The candidates this round has not failed on yet, in selection order. */
  List<Candidate> untried(List<Candidate> candidates) {
    List<Candidate> out = new ArrayList<>(candidates.size());
    for (Candidate c : candidates) {
      if (!tried().contains(c.key(settings.connectionId()))) {
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
      tried().add(c.key(settings.connectionId()));
    }
    if (deadlinePassed()) {
      fail(cause);
    } else {
      runtime.retry(this);
    }
  }

  int round() {
    return retryState == null ? 0 : retryState.round;
  }

  void beginNextRound() {
    retryState().round++;
    tried().clear();
  }

  void failWithLatestCause() {
    fail(retryState().latestCause);
  }

  private void record(Attempt.Outcome outcome, String reason) {
    List<Attempt> attempts = retryState().attempts;
    RequestChannel c = connection;
    attempts.add(new Attempt(c == null ? "" : c.toString(), outcome, reason));
  }

  int retries() {
    return retryState == null ? 0 : retryState.retries;
  }

  /** The failure history of one call; made on its first failed attempt. */
  private static final class RetryState {
    int retries;
    /** Which round of attempts runs: 0 first, one more per retry interval. */
    int round;
    /** Connections this round's attempts failed on. */
    final java.util.Set<ConnectionKey> triedThisRound = new java.util.HashSet<>();
    /** Why the latest attempt failed. */
    TetherException latestCause;
    final List<Attempt> attempts = new ArrayList<>(2);
  }

  private boolean deadlinePassed() {
    return deadlineNanos != 0 && runtime.ticker().nanoTime() - deadlineNanos >= 0;
  }

  private void onTimeout() {
    if (fail(new InvocationTimeoutException(
        operation + " got no answer within " + settings.invocationTimeout().toMillis() + " ms on " + describeConnection()))) {
      RequestChannel c = connection;
      if (c != null) {
        c.abandon(this);
      }
    }
  }

  void succeed(byte[] result) {
    cancelTimeout();
    endAttempt();
    complete(result);
    wakeWaiter();
  }

  private void wakeWaiter() {
    Thread w = waiter;
    if (w != null) {
      LockSupport.unpark(w);
    }
  }

  /**
   * Waits for the answer parked on this call itself, so a blocking call allocates no waiter
   * node; rethrows Tether's exceptions unwrapped.
   */
  @Override
  public byte[] awaitReply() {
    if (!isDone()) {
      waiter = Thread.currentThread();
      while (!isDone()) {
        LockSupport.park(this);
        if (Thread.interrupted()) {
          waiter = null;
          Thread.currentThread().interrupt();
          throw new TetherException("interrupted while waiting for " + operation);
        }
      }
      waiter = null;
    }
    try {
      return join();
    } catch (java.util.concurrent.CompletionException | java.util.concurrent.CancellationException e) {
      Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
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

  boolean fail(Throwable t) {
    cancelTimeout();
    endAttempt();
    if (retryState != null && t instanceof TetherException te) {
      te.withAttempts(retryState.attempts);
    }
    boolean failed = completeExceptionally(t);
    wakeWaiter();
    return failed;
  }

  private void cancelTimeout() {
    Scheduler.Cancellable t = timeoutTask;
    if (t != null) {
      t.cancel();
    }
  }

  private String endpointText() {
    RequestChannel c = connection;
    return c instanceof BaseConnection b ? b.endpointText() : null;
  }

  private String describeConnection() {
    RequestChannel c = connection;
    return c == null ? "no connection" : c.toString();
  }
}
