package dev.tether.grpc.client;

import dev.tether.Idempotency;
import dev.tether.Proxy;
import dev.tether.grpc.GrpcHeaders;
import dev.tether.grpc.SerialTasks;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * One unary call through {@link TetherChannel}: the request (metadata and message) goes to the
 * runtime as one Tether call on the channel's proxy, so the runtime chooses the connection, retries
 * by the at-most-once rule ({@link MethodDescriptor#isIdempotent()} or {@link
 * MethodDescriptor#isSafe()} makes it idempotent) and bounds it by the earlier of the CallOptions
 * and Context deadlines and the proxy's invocation timeout. The listener hears the answer on the
 * call's executor, one event at a time, messages as it requests them.
 */
final class TetherClientCall<ReqT, RespT> extends ClientCall<ReqT, RespT> {
  private final TetherChannel channel;
  private final MethodDescriptor<ReqT, RespT> method;
  private final CallOptions options;

  /** Runs the listener's events one at a time, in order. */
  private final Executor events;

  private final Context context = Context.current();

  // Guarded by this: the caller's thread and the answer's thread both reach them.
  private Listener<RespT> listener;
  private Metadata headers;
  private byte[] message;
  private boolean halfClosed;
  private boolean closed;
  private CompletableFuture<byte[]> sent;
  private final Context.CancellationListener contextCancelled = this::onContextCancelled;

  /** Answers not yet asked for, and the close that follows them; the events' executor's. */
  private final Queue<RespT> unread = new ArrayDeque<>();

  private int requested;
  private Status closing;
  private Metadata closingTrailers;

  TetherClientCall(
      TetherChannel channel,
      MethodDescriptor<ReqT, RespT> method,
      CallOptions options,
      Executor executor) {
    this.channel = channel;
    this.method = method;
    this.options = options;
    this.events = new SerialTasks(executor, channel.retryLater());
  }

  @Override
  public void start(Listener<RespT> responseListener, Metadata metadata) {
    synchronized (this) {
      if (listener != null) {
        throw new IllegalStateException("the call was started already");
      }
      listener = responseListener;
      headers = metadata;
    }
    if (!channel.callStarted(this)) {
      end(TetherChannel.refusedByShutdown(), new Metadata());
      return;
    }
    if (method.getType() != MethodDescriptor.MethodType.UNARY) {
      end(
          Status.UNIMPLEMENTED.withDescription(
              "Tether's gRPC channel carries unary methods only so far, not "
                  + method.getType()
                  + " "
                  + method.getFullMethodName()),
          new Metadata());
      return;
    }
    if (context.isCancelled()) {
      end(Status.CANCELLED.withDescription("the context was cancelled"), new Metadata());
      return;
    }
    context.addListener(contextCancelled, Runnable::run);
  }

  @Override
  public void request(int numMessages) {
    events.execute(
        () -> {
          requested += numMessages;
          deliver();
        });
  }

  @Override
  public void sendMessage(ReqT request) {
    synchronized (this) {
      if (listener == null || halfClosed) {
        throw new IllegalStateException("sendMessage before start or after halfClose");
      }
      if (closed) {
        return;
      }
      if (message != null) {
        throw new IllegalStateException("a unary call takes one request message");
      }
      message = bytesOf(request);
    }
  }

  @Override
  public void halfClose() {
    byte[] request;
    Metadata md;
    synchronized (this) {
      if (listener == null || halfClosed) {
        throw new IllegalStateException("halfClose before start or twice");
      }
      halfClosed = true;
      if (closed) {
        return;
      }
      request = message;
      md = headers;
    }
    if (request == null) {
      end(Status.INTERNAL.withDescription("a unary call needs one request message"), null);
      return;
    }
    send(request, md);
  }

  @Override
  public void cancel(String why, Throwable cause) {
    CompletableFuture<byte[]> f;
    synchronized (this) {
      if (listener == null) {
        closed = true; // never started: nothing to tell anyone
        return;
      }
      f = sent;
    }
    if (f != null) {
      f.cancel(false);
    }
    Status status = Status.CANCELLED.withDescription(why == null ? "cancelled by the caller" : why);
    end(cause == null ? status : status.withCause(cause), new Metadata());
  }

  @Override
  public synchronized boolean isReady() {
    return listener != null && !halfClosed && !closed;
  }

  private void onContextCancelled(Context c) {
    Throwable cause = c.cancellationCause();
    Deadline d = c.getDeadline();
    if (d != null && d.isExpired()) {
      cancel("the context's deadline passed", cause);
    } else {
      cancel("the context was cancelled", cause);
    }
  }

  private byte[] bytesOf(ReqT request) {
    try (InputStream in = method.streamRequest(request)) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot serialize the request of " + method, e);
    }
  }

  private void send(byte[] request, Metadata md) {
    Proxy proxy = channel.proxy();
    Deadline deadline = earliest(options.getDeadline(), context.getDeadline());
    if (deadline != null) {
      long nanos = deadline.timeRemaining(TimeUnit.NANOSECONDS);
      if (nanos <= 0) {
        end(Status.DEADLINE_EXCEEDED.withDescription("deadline passed before sending"), null);
        return;
      }
      Duration left = Duration.ofNanos(nanos);
      Duration own = proxy.invocationTimeout();
      if (own == null || left.compareTo(own) < 0) {
        proxy = proxy.withInvocationTimeout(left);
      }
    }
    byte[] envelope =
        Envelopes.request(GrpcHeaders.addMetadata(new DefaultHttp2Headers(false), md), request);
    Idempotency idempotency =
        method.isIdempotent() || method.isSafe()
            ? Idempotency.IDEMPOTENT
            : Idempotency.NOT_IDEMPOTENT;
    CompletableFuture<byte[]> f =
        proxy.invokeAsync(method.getFullMethodName(), envelope, idempotency);
    synchronized (this) {
      sent = f;
    }
    f.whenComplete((answer, failure) -> events.execute(() -> answered(answer, failure)));
  }

  private static Deadline earliest(Deadline a, Deadline b) {
    if (a == null) {
      return b;
    }
    return b == null ? a : a.minimum(b);
  }

  /** On the events' executor: the runtime ended the call, with the server's answer or without. */
  private void answered(byte[] answer, Throwable failure) {
    if (failure != null) {
      endOnEvents(GrpcStatuses.ofFailure(failure), new Metadata());
      return;
    }
    Envelopes.Answer a = Envelopes.readAnswer(answer);
    Status status = GrpcStatuses.ofTrailers(a.trailers());
    Metadata trailers = GrpcHeaders.toMetadata(a.trailers());
    if (status.isOk() && a.messages().size() != 1) {
      status =
          Status.INTERNAL.withDescription(
              "a unary answer had " + a.messages().size() + " messages");
    }
    boolean trailersOnly = a.headers().get(GrpcHeaders.STATUS) != null;
    if (!isClosed() && !trailersOnly && !a.headers().isEmpty()) {
      listener().onHeaders(GrpcHeaders.toMetadata(a.headers()));
    }
    if (status.isOk()) {
      try {
        unread.add(method.parseResponse(new ByteArrayInputStream(a.messages().get(0))));
      } catch (RuntimeException bad) {
        status = Status.INTERNAL.withDescription("cannot parse the answer").withCause(bad);
      }
    }
    endOnEvents(status, trailers);
  }

  private synchronized boolean isClosed() {
    return closed;
  }

  private synchronized Listener<RespT> listener() {
    return listener;
  }

  /** Ends the call from any thread: the close waits behind the events already queued. */
  private void end(Status status, Metadata trailers) {
    events.execute(() -> endOnEvents(status, trailers == null ? new Metadata() : trailers));
  }

  private void endOnEvents(Status status, Metadata trailers) {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    context.removeListener(contextCancelled);
    closing = status;
    closingTrailers = trailers;
    if (!status.isOk()) {
      unread.clear();
    }
    deliver();
  }

  /** Hands the listener what it asked for, then the close once nothing is left to read. */
  private void deliver() {
    Listener<RespT> l = listener();
    while (requested > 0 && !unread.isEmpty()) {
      requested--;
      l.onMessage(unread.poll());
    }
    if (closing != null && unread.isEmpty()) {
      Status s = closing;
      closing = null;
      l.onClose(s, closingTrailers);
      channel.callEnded(this);
    }
  }
}
