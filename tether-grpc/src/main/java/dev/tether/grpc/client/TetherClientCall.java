package dev.tether.grpc.client;

import dev.tether.FailedAnswerException;
import dev.tether.Idempotency;
import dev.tether.Proxy;
import dev.tether.grpc.GrpcHeaders;
import dev.tether.grpc.SerialTasks;
import dev.tether.spi.Scheduler;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * One unary or server-streaming call through {@link TetherChannel}: the request (metadata and
 * message) goes to the runtime as one Tether call on the channel's proxy, so the runtime chooses
 * the connection, retries by the at-most-once rule ({@link MethodDescriptor#isIdempotent()} or
 * {@link MethodDescriptor#isSafe()} makes it idempotent) and bounds it by the earlier of the
 * CallOptions and Context deadlines and the proxy's invocation timeout. The listener hears the
 * answer on the call's executor, one event at a time, messages as it requests them. A server
 * stream's opening is such a call until the server's response HEADERS accept it; then its messages
 * come straight from the connection ({@link StreamSink}), and the window is given back only as the
 * listener asks for them ({@code request(n)} as HTTP/2 flow control).
 */
final class TetherClientCall<ReqT, RespT> extends ClientCall<ReqT, RespT> {
  private final TetherChannel channel;
  private final MethodDescriptor<ReqT, RespT> method;
  private final CallOptions options;

  /** Runs the listener's events one at a time, in order. */
  private final Executor events;

  private final Context context = Context.current();

  /** The earlier of the CallOptions and Context deadlines, once sent; null for none. */
  private volatile Deadline deadline;

  // Guarded by this: the caller's thread and the answer's thread both reach them.
  private Listener<RespT> listener;
  private Metadata headers;
  private byte[] message;
  private boolean halfClosed;
  private boolean closed;
  private CompletableFuture<byte[]> sent;
  private final Context.CancellationListener contextCancelled = this::onContextCancelled;

  /**
   * Answers not yet asked for, and the close that follows them; guarded by this (added and taken on
   * the events' executor, looked at by {@link #request}).
   */
  private final Queue<Unread<RespT>> unread = new ArrayDeque<>(1); // grows for a stream

  /** An answer not yet asked for, and the window it takes (0 for a unary answer). */
  private record Unread<T>(T message, int wireBytes) {}

  /** A server stream's token and sink ({@link StreamTokens}); 0 and null for a unary call. */
  private long streamToken;

  /** Non-null once the stream is accepted; guarded by this. */
  private StreamSink.Control streamControl;

  /** An accepted stream's deadline on the runtime's scheduler, null for none; guarded by this. */
  private Scheduler.Cancellable deadlineTimer;

  /**
   * What the caller sent on its stream that has not left for the wire: {@link #isReady()}. Null for
   * calls whose caller sends one message (unary, server stream): most calls, made by the thousand a
   * second.
   */
  private final SendWindow window;

  /**
   * Messages a client or bidirectional stream's caller sent before it was accepted; null until the
   * first; guarded by this.
   */
  private List<byte[]> unsent;

  /** Messages a server stream delivered; the events' executor's. */
  private int arrived;

  /** Messages the listener asked for and has not had; guarded by this. */
  private int requested;

  /** How request messages go (CallOptions' compression); set at start, null for an unknown one. */
  private RequestEncoding encoding = RequestEncoding.IDENTITY;

  /** The close waiting for the unread answers; guarded by this. */
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
    this.window = clientSends() ? new SendWindow(this::readyAgain) : null;
  }

  @Override
  public void start(Listener<RespT> responseListener, Metadata metadata) {
    synchronized (this) {
      if (listener != null) {
        throw new IllegalStateException("the call was started already");
      }
      listener = responseListener;
      headers = metadata;
      encoding = RequestEncoding.named(options.getCompressor());
    }
    if (!channel.callStarted(this)) {
      end(TetherChannel.refusedByShutdown(), new Metadata());
      return;
    }
    if (context.isCancelled()) {
      end(Status.CANCELLED.withDescription("the context was cancelled"), new Metadata());
      return;
    }
    context.addListener(contextCancelled, Runnable::run);
    if (clientSends()) {
      send(null, metadata); // the stream opens now; its messages follow as the caller sends them
    }
  }

  /**
   * Counts the demand at once; only when answers or the close wait for it does the listener's
   * executor hear of it. A unary call's stub asks before its answer comes, so its whole answer then
   * reaches the listener as one task, with no hand-off for the request.
   */
  @Override
  public void request(int numMessages) {
    boolean waiting;
    synchronized (this) {
      requested += numMessages;
      waiting = !unread.isEmpty() || closing != null;
    }
    if (waiting) {
      events.execute(this::deliver);
    }
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
      if (clientSends()) {
        sendOnStream(bytesOf(request));
        return;
      }
      if (message != null) {
        throw new IllegalStateException("a unary call takes one request message");
      }
      message = bytesOf(request);
    }
  }

  /** Under this: to the stream once accepted, else kept until it is. */
  private void sendOnStream(byte[] bytes) {
    window.onSending(5 + bytes.length);
    if (streamControl != null) {
      streamControl.send(bytes);
    } else {
      if (unsent == null) {
        unsent = new ArrayList<>();
      }
      unsent.add(bytes);
    }
  }

  /** The stream was accepted: what the caller sent meanwhile follows, then its half-close. */
  private synchronized void streamAccepted(StreamSink.Control control) {
    streamControl = control;
    if (closed) {
      control.cancel(); // the caller gave up while the stream opened
      return;
    }
    Deadline d = deadline;
    if (d != null) { // until now the opening's invocation timeout kept it
      deadlineTimer =
          control.schedule(this::onStreamDeadline, d.timeRemaining(TimeUnit.NANOSECONDS));
    }
    if (unsent != null) {
      for (byte[] m : unsent) {
        control.send(m);
      }
      unsent = null;
    }
    if (halfClosed && clientSends()) {
      control.halfClose();
    }
    readyAgain(); // as on grpc-java's channel: the stream is ready once it is open
  }

  /** The caller may send again: its listener hears onReady, on the events' executor. */
  private void readyAgain() {
    events.execute(
        () -> {
          if (isReady()) {
            listener().onReady();
          }
        });
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
      if (clientSends()) {
        if (streamControl != null) {
          streamControl.halfClose();
        }
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
    Status status = Status.CANCELLED.withDescription(why == null ? "cancelled by the caller" : why);
    abort(f, cause == null ? status : status.withCause(cause));
  }

  /** Ends the call with {@code status}: its runtime call and its stream are cancelled. */
  private void abort(CompletableFuture<byte[]> f, Status status) {
    if (f != null) {
      f.cancel(false);
    }
    StreamSink.Control control = control();
    if (control != null) {
      control.cancel();
    }
    end(status, new Metadata());
  }

  private synchronized StreamSink.Control control() {
    return streamControl;
  }

  /**
   * A stream's deadline passed: once accepted, a stream is no longer the runtime's call, so its
   * deadline is kept here (the server heard it as grpc-timeout too).
   */
  private void onStreamDeadline() {
    CompletableFuture<byte[]> f;
    synchronized (this) {
      if (closed) {
        return;
      }
      f = sent;
    }
    abort(f, Status.DEADLINE_EXCEEDED.withDescription("the stream's deadline passed"));
  }

  /**
   * A stream the caller sends on is ready while what it sent and the wire has not taken yet (the
   * HTTP/2 stream's send window, the socket) stays below gRPC's threshold ({@link SendWindow}).
   */
  @Override
  public synchronized boolean isReady() {
    return listener != null && !halfClosed && !closed && (!clientSends() || window.hasRoom());
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
      byte[] bytes = in.readAllBytes();
      return encoding == null ? bytes : encoding.encode(bytes);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot serialize the request of " + method, e);
    }
  }

  private void send(byte[] request, Metadata md) {
    if (encoding == null) { // as grpc-java's channel: the call fails before anything is sent
      end(
          Status.INTERNAL.withDescription(
              "Unable to find compressor by name " + options.getCompressor()),
          null);
      return;
    }
    Proxy proxy = channel.proxy();
    deadline = earliest(options.getDeadline(), context.getDeadline());
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
    if (streams()) {
      streamToken = StreamTokens.register(new Feed());
    }
    // Four buckets, not Netty's sixteen: most calls carry a few entries, and more only chain.
    byte[] envelope =
        Envelopes.request(
            encoding.announce(GrpcHeaders.addMetadata(new DefaultHttp2Headers(false, 4), md)),
            request == null ? new byte[0] : request,
            streamToken,
            clientSends());
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
    FailedAnswerException failedAnswer = GrpcStatuses.failedAnswer(failure);
    if (failure != null && failedAnswer == null) {
      endOnEvents(pastDeadline(GrpcStatuses.ofFailure(failure)), new Metadata());
      return;
    }
    if (failedAnswer != null) { // the server's failure status: its trailers are the answer's
      answer = failedAnswer.answer();
    }
    Envelopes.Answer a = Envelopes.readAnswer(answer);
    if (a.trailers().get(GrpcHeaders.STATUS) == null) { // a server stream accepted: messages follow
      if (!isClosed() && !a.headers().isEmpty()) {
        listener().onHeaders(GrpcHeaders.toMetadata(a.headers()));
      }
      return;
    }
    Status status = GrpcStatuses.ofTrailers(a.trailers());
    Metadata trailers = GrpcHeaders.toMetadata(a.trailers());
    if (status.isOk() && !streams() && a.messages().size() != 1) {
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
        for (byte[] m : a.messages()) {
          read(method.parseResponse(new ByteArrayInputStream(m)), 0);
        }
      } catch (RuntimeException bad) {
        status = Status.INTERNAL.withDescription("cannot parse the answer").withCause(bad);
      }
    }
    endOnEvents(status, trailers);
  }

  /** Every kind but unary answers through a {@link StreamSink}. */
  private boolean streams() {
    return method.getType() != MethodDescriptor.MethodType.UNARY;
  }

  /** Client and bidirectional streams: the caller sends after the stream opened. */
  private boolean clientSends() {
    return !method.getType().clientSendsOneMessage();
  }

  /** A server stream's messages and end, from the connection's loop onto the events' executor. */
  private final class Feed implements StreamSink {
    @Override
    public long remainingMillis() {
      Deadline d = deadline;
      return d == null ? 0 : Math.max(1, d.timeRemaining(TimeUnit.MILLISECONDS));
    }

    @Override
    public void onAccepted(Control control) {
      streamAccepted(control);
    }

    @Override
    public void onHeaders(Http2Headers h) {
      events.execute(
          () -> {
            if (!isClosed()) {
              listener().onHeaders(GrpcHeaders.toMetadata(h));
            }
          });
    }

    @Override
    public void onMessage(byte[] message, int wireBytes) {
      events.execute(() -> streamed(message, wireBytes));
    }

    @Override
    public void onSent(int wireBytes) {
      if (window != null) { // only a caller that sends streams messages of its own
        window.onSent(wireBytes);
      }
    }

    @Override
    public void onTrailers(Http2Headers trailers) {
      events.execute(
          () -> endOnEvents(GrpcStatuses.ofTrailers(trailers), GrpcHeaders.toMetadata(trailers)));
    }

    @Override
    public void onLost(String why) {
      events.execute(
          () ->
              endOnEvents(
                  pastDeadline(
                      Status.UNAVAILABLE.withDescription(
                          "the stream was lost after "
                              + arrived
                              + " message"
                              + (arrived == 1 ? "" : "s")
                              + " arrived: "
                              + why)),
                  new Metadata()));
    }
  }

  private void streamed(byte[] message, int wireBytes) {
    if (isClosed()) {
      return;
    }
    arrived++;
    try {
      read(method.parseResponse(new ByteArrayInputStream(message)), wireBytes);
    } catch (RuntimeException bad) {
      cancel("cannot parse a message of the stream", bad);
      return;
    }
    deliver();
  }

  /**
   * A call that ended without an answer once its deadline passed ended by the deadline, whatever
   * came first (the server resets its stream at the grpc-timeout it heard), as on grpc-java.
   */
  private Status pastDeadline(Status status) {
    Deadline d = deadline;
    if (status.getCode() == Status.Code.DEADLINE_EXCEEDED || d == null || !d.isExpired()) {
      return status;
    }
    return Status.DEADLINE_EXCEEDED
        .withDescription("deadline passed: " + status.getDescription())
        .withCause(status.getCause());
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
      if (deadlineTimer != null) {
        deadlineTimer.cancel();
      }
    }
    context.removeListener(contextCancelled);
    StreamTokens.forget(streamToken);
    synchronized (this) {
      closing = status;
      closingTrailers = trailers;
      if (!status.isOk()) {
        unread.clear();
      }
    }
    deliver();
  }

  /** On the events' executor: an answer waits for the listener to ask for it. */
  private synchronized void read(RespT message, int wireBytes) {
    unread.add(new Unread<>(message, wireBytes));
  }

  /**
   * On the events' executor: hands the listener what it asked for, then the close once nothing is
   * left to read. The listener runs outside the lock, so it may call back (request, cancel).
   */
  private void deliver() {
    Listener<RespT> l = listener();
    while (true) {
      Unread<RespT> next = null;
      Status s = null;
      Metadata t = null;
      StreamSink.Control control;
      synchronized (this) {
        if (requested > 0 && !unread.isEmpty()) {
          requested--;
          next = unread.poll();
        } else if (closing != null && unread.isEmpty()) {
          s = closing;
          t = closingTrailers;
          closing = null;
        } else {
          return;
        }
        control = streamControl;
      }
      if (next == null) {
        l.onClose(s, t);
        channel.callEnded(this);
        return;
      }
      l.onMessage(next.message());
      if (next.wireBytes() > 0 && control != null) {
        control.consumed(next.wireBytes());
      }
    }
  }
}
