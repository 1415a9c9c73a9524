package dev.tether.client;

import dev.tether.ConnectionLostException;
import dev.tether.InvocationTimeoutException;
import dev.tether.OperationNotFoundException;
import dev.tether.RemoteException;
import dev.tether.RequestRefusedException;
import dev.tether.ServiceNotFoundException;
import dev.tether.TetherException;
import dev.tether.protocol.Request;
import dev.tether.protocol.Response;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;

/**
 * One call from the moment a proxy makes it until it completes; it is its own future. It knows
 * whether its request may have reached the server ({@link #wasSent()}), which decides whether a
 * failed attempt may be retried (DESIGN.md section 5). Completion runs callbacks on the event
 * loop that delivered the outcome, so they must not block.
 */
public final class Invocation extends CompletableFuture<byte[]> {
  static final byte[] EMPTY = new byte[0];
  /** Attempts after the first that a call whose request surely did not run may make. */
  private static final int MAX_TRANSPARENT_RETRIES = 4;

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
  private int retries;
  /** Non-null only while an invocation timeout is armed. */
  private volatile ScheduledFuture<?> timeoutTask;
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

  Request toRequest() {
    return new Request(requestId, flags, settings.identity(), operation, remainingMillis(), Map.of(), body);
  }

  void armTimeout() {
    if (settings.invocationTimeout() != null && !isDone()) {
      timeoutTask = runtime.schedule(this::onTimeout, settings.invocationTimeout());
    }
  }

  void attachedTo(RequestChannel c) {
    connection = c;
    sent = false;
  }

  /** The whole frame reached the kernel; a oneway call is complete now. */
  void onSent() {
    sent = true;
    if (isOneway()) {
      succeed(EMPTY);
    }
  }

  void onResponse(Response r) {
    switch (r.status()) {
      case OK -> succeed(r.body());
      case REMOTE_ERROR -> fail(new RemoteException(
          r.metadata().getOrDefault(Response.ERROR_TYPE, "unknown"),
          r.metadata().getOrDefault(Response.ERROR_MESSAGE, "")));
      case SERVICE_NOT_FOUND -> fail(new ServiceNotFoundException(
          "no service \"" + settings.identity() + "\" on " + describeConnection()));
      case OPERATION_NOT_FOUND -> fail(new OperationNotFoundException(
          "service \"" + settings.identity() + "\" has no operation \"" + operation + "\" on " + describeConnection()));
      case REFUSED -> onRefused("the server refused the request on " + describeConnection());
      case DEADLINE_EXCEEDED -> fail(new InvocationTimeoutException(
          "the server saw the deadline of " + operation + " pass before running it"));
      case INTERNAL -> fail(new TetherException(
          "the server failed: " + r.metadata().getOrDefault(Response.ERROR_MESSAGE, "internal error")));
    }
  }

  /** The server proved it did not run the request: safe to retry, idempotent or not. */
  void onRefused(String why) {
    retryOrFail(new RequestRefusedException(why + " (" + operation + ")"));
  }

  /** The attempt ended before its frame was whole on the wire: the server cannot have run it. */
  void onNotSent(Throwable cause) {
    retryOrFail(cause instanceof TetherException te ? te : new ConnectionLostException(
        "connection failed before " + operation + " was sent: " + cause, false, cause));
  }

  /** The connection closed while this call waited for its answer. */
  void onConnectionLost(Throwable cause) {
    if (!sent) {
      onNotSent(cause);
      return;
    }
    ConnectionLostException lost = new ConnectionLostException(
        "connection " + describeConnection() + " lost after " + operation + " was sent: " + cause, true, cause);
    if (isIdempotent()) {
      retryOrFail(lost);
    } else {
      fail(lost);
    }
  }

  private void retryOrFail(TetherException cause) {
    if (isDone()) {
      return;
    }
    if (retries >= MAX_TRANSPARENT_RETRIES || deadlinePassed()) {
      fail(cause);
      return;
    }
    retries++;
    binding.forget(connection);
    connection = null;
    runtime.start(this);
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
    complete(result);
  }

  boolean fail(Throwable t) {
    cancelTimeout();
    return completeExceptionally(t);
  }

  private void cancelTimeout() {
    ScheduledFuture<?> t = timeoutTask;
    if (t != null) {
      t.cancel(false);
    }
  }

  private String describeConnection() {
    RequestChannel c = connection;
    return c == null ? "no connection" : c.toString();
  }
}
