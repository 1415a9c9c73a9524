package dev.tether.grpc;

import dev.tether.CallContext;
import dev.tether.PermissionDeniedException;
import dev.tether.ServerCallObserver;
import dev.tether.spi.WireProtocol;
import io.grpc.Attributes;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerMethodDefinition;
import io.grpc.Status;
import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Stream;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One gRPC call on one HTTP/2 stream, seen by the service through grpc-java's {@link ServerCall}.
 * Its stream state (demand, what was sent, how it ended) lives on the connection's event loop:
 * methods the service calls from any thread hop there. The listener's events run one at a time on
 * the server's executor, inside the call's {@link Context}, which the deadline, a reset or a lost
 * connection cancel. Inbound bytes earn the client more window only as the service asks for
 * messages ({@link InboundMessages}); outbound, the call is ready only while few of its responses
 * wait to be written ({@link OutboundMessages}), so neither a slow service nor a slow client fills
 * the server.
 */
final class GrpcServerCall<ReqT, RespT> extends ServerCall<ReqT, RespT> {
  private static final Logger log = LoggerFactory.getLogger(GrpcServerCall.class);

  /** The call as Tether sees it, in the call's io.grpc {@link Context}. */
  static final Context.Key<CallContext> CALL = Context.key("dev.tether.grpc.call");

  private final GrpcConnection connection;

  /** The server's count of this call, and its interceptors and call observer. */
  private final WireProtocol.HostedCall hosted;

  private final CallContext call;

  private final Http2Stream stream;
  private final ServerMethodDefinition<ReqT, RespT> method;
  private final String authority;
  private final EventLoop loop;
  private final SerialTasks events;
  private final InboundMessages inbound;
  private final int maxInboundMessageSize;

  /** The client's last messages once the loop handed them to the listener's side. */
  private final ArrivedMessages arrived = new ArrivedMessages(new ArrivedDelivery());

  /**
   * Set on the loop once the client's half ended and its messages went to {@link #arrived}: the
   * service's requests go there from then on, not to the loop.
   */
  private volatile boolean restHandedOver;

  /** The service closed the call, or it ended: {@link #arrived} hands out nothing more. */
  private volatile boolean deliveryStopped;

  /**
   * The method sends one response (unary, client streaming): its headers and message wait for its
   * trailers to wake the loop, as grpc-java's server holds them, so each call wakes it once.
   */
  private final boolean oneResponse;

  /** The responses handed over and not yet written, which decide {@link #isReady}. */
  private final OutboundMessages<RespT> outbound;

  /**
   * The budget refused a message: the call is ending, and later messages are dropped without a loop
   * task each (a service on the loop, still sending, would pile them up).
   */
  private final AtomicBoolean oversent = new AtomicBoolean();

  /** The responses sent since the last flush, written together at the next. */
  private final HeldMessages held;

  // On the event loop only.
  private boolean headersSent;

  /** The server sent its last frame (trailers or a reset): nothing more is written. */
  private boolean closed;

  /** The listener heard its last event (onComplete or onCancel). */
  private boolean finished;

  /** The status the call ended with, as sent (or CANCELLED for a reset); null until then. */
  private Status ending;

  /** What the service or an interceptor threw, for the observer; null for nothing. */
  private Throwable failure;

  private Context.CancellableContext context;

  /** Hears the context end, which before the call's end only its deadline does. */
  private final Context.CancellationListener deadline = ended -> deadlineReached();

  private volatile boolean cancelled;

  /** The call may still send: from its start until it is closed or finished. */
  private volatile boolean ready;

  /** Set and read by listener events only, which run one at a time. */
  private Listener<ReqT> listener;

  @SuppressWarnings("unchecked")
  GrpcServerCall(
      GrpcConnection connection,
      CallContext call,
      WireProtocol.HostedCall hosted,
      Http2Stream stream,
      ServerMethodDefinition<?, ?> method,
      String authority,
      Encodings encodings,
      int maxInboundMessageSize) {
    this.connection = connection;
    this.hosted = hosted;
    this.call = call;
    this.stream = stream;
    this.method = (ServerMethodDefinition<ReqT, RespT>) method;
    this.authority = authority;
    this.loop = connection.context().channel().eventLoop();
    this.events =
        new SerialTasks(
            connection.serviceExecutor(),
            connection.hosted().lazyExecutor(),
            connection.host().scheduler(),
            connection.eventStarts());
    this.oneResponse = this.method.getMethodDescriptor().getType().serverSendsOneMessage();
    this.outbound =
        new OutboundMessages<>(
            this.method.getMethodDescriptor(),
            encodings.clientAcceptsGzip(),
            connection.outboundBudget(),
            () -> ready,
            this::readyAgain);
    this.held = new HeldMessages(connection, stream, outbound::settled);
    this.maxInboundMessageSize = maxInboundMessageSize;
    this.inbound =
        new InboundMessages(
            new MessageDeframer(
                connection.context().alloc(), maxInboundMessageSize, encodings.gzip()),
            new Delivery(),
            bytes -> connection.consume(stream, bytes),
            connection.inboundBudget());
  }

  /**
   * How the call's messages may be compressed.
   *
   * @param gzip the client sends gzip (its grpc-encoding)
   * @param clientAcceptsGzip the client's grpc-accept-encoding names gzip
   */
  record Encodings(boolean gzip, boolean clientAcceptsGzip) {}

  /** Starts the service's handler in a context that ends at the deadline, if any. On the loop. */
  void start(Metadata headers, long timeoutNanos) {
    dev.tether.spi.Ticker ticker = connection.host().ticker();
    Context root = Context.ROOT.withValue(CALL, call);
    context =
        timeoutNanos < 0
            ? root.withCancellation()
            : root.withDeadline(
                Deadline.after(
                    timeoutNanos,
                    TimeUnit.NANOSECONDS,
                    new Deadline.Ticker() {
                      @Override
                      public long nanoTime() {
                        return ticker.nanoTime();
                      }
                    }),
                loop);
    if (timeoutNanos >= 0) {
      // Only a deadline ends the context before the call does; without one a listener would cost
      // a loop task at each call's end for nothing.
      context.addListener(deadline, loop);
    }
    ready = true;
    // One task: the start and the first onReady need no queue entry each.
    events.execute(
        () -> {
          context.run(() -> startService(headers));
          runEvent(Listener::onReady);
        });
  }

  /**
   * The first event, on the service's thread: the server's oversight sees the call, then (unless an
   * interceptor refused it) the service's handler starts it.
   */
  private void startService(Metadata headers) {
    listener = new Listener<>() {};
    Throwable refused = hosted.intercept();
    if (refused != null) {
      Status status =
          refused instanceof PermissionDeniedException
              ? Status.PERMISSION_DENIED.withDescription(refused.getMessage())
              : Status.INTERNAL.withDescription("the server's interceptor failed");
      onLoop(
          () -> {
            failure = refused;
            abort(status, true);
          });
      return;
    }
    try (ServerCallObserver.Scope entered = hosted.enter()) {
      listener = method.getServerCallHandler().startCall(this, headers);
    } catch (Throwable t) {
      failedInService(t);
    }
  }

  /** The context ended: when by its deadline, the call ends as grpc-java's server ends it. */
  private void deadlineReached() {
    if (!finished && context.cancellationCause() instanceof TimeoutException) {
      abort(Status.DEADLINE_EXCEEDED.withDescription("deadline exceeded"), false);
    }
  }

  /** Runs {@code e} on the listener, in order with the call's other events, in its context. */
  private void event(Consumer<Listener<ReqT>> e) {
    events.execute(() -> runEvent(e));
  }

  /** Runs {@code e} on the listener now, from one of the call's events, in its context. */
  private void runEvent(Consumer<Listener<ReqT>> e) {
    context.run(
        () -> {
          try (ServerCallObserver.Scope entered = hosted.enter()) {
            e.accept(listener);
          } catch (Throwable t) {
            failedInService(t);
          }
        });
  }

  /** The service threw: the client hears UNKNOWN, as from grpc-java's server. */
  private void failedInService(Throwable t) {
    log.debug("gRPC service {} failed", method.getMethodDescriptor().getFullMethodName(), t);
    onLoop(
        () -> {
          if (failure == null) {
            failure = t;
          }
          abort(Status.fromThrowable(t), true);
        });
  }

  // Inbound, on the loop.

  /** DATA from the client ({@code data} null for none), and whether its half ended. */
  void inbound(ByteBuf data, boolean endOfStream) {
    if (!closed) {
      inbound.add(data, endOfStream);
      handOverRest();
    }
  }

  /**
   * The client is done and sent messages nobody asked for yet: they go to the listener's side, so
   * the service's requests are answered there, in its own events, without waking the loop.
   */
  private void handOverRest() {
    InboundMessages.Rest rest = inbound.takeRest();
    if (rest != null) {
      restHandedOver = true;
      events.execute(() -> arrived.arrive(rest));
    }
  }

  /** The client's last messages, handed out from the listener's events. */
  private final class ArrivedDelivery implements ArrivedMessages.Receiver {
    @Override
    public void message(MessageDeframer.Message message) {
      runEvent(l -> l.onMessage(parse(message)));
    }

    @Override
    public void halfClose() {
      runEvent(Listener::onHalfClose);
    }

    @Override
    public void malformed(Status status) {
      onLoop(() -> abort(status, true));
    }

    @Override
    public void consumed(long bytes) {
      // Once the service closed the call, its close gives every byte back: no task for it.
      if (!deliveryStopped) {
        onLoop(() -> inbound.consumed(bytes));
      }
    }

    @Override
    public boolean stopped() {
      return deliveryStopped;
    }
  }

  /** The client's messages as the service asks for them, on the loop. */
  private final class Delivery implements InboundMessages.Receiver {
    @Override
    public void message(MessageDeframer.Message message) {
      event(l -> l.onMessage(parse(message)));
    }

    @Override
    public void halfClose() {
      event(Listener::onHalfClose);
    }

    @Override
    public void malformed(Status status) {
      abort(status, true);
    }
  }

  /** On the service's thread: inflating a message is work the event loop does not do. */
  private ReqT parse(MessageDeframer.Message message) {
    byte[] bytes =
        message.compressed()
            ? Gzip.decompress(message.bytes(), maxInboundMessageSize)
            : message.bytes();
    try (InputStream in = new ByteArrayInputStream(bytes)) {
      return method.getMethodDescriptor().parseRequest(in);
    } catch (IOException impossible) {
      throw new IllegalStateException(impossible);
    }
  }

  boolean isClosed() {
    return closed;
  }

  /** The stream is gone: after the server's last frame a completion, else a cancellation. */
  void streamClosed() {
    if (finished) {
      return;
    }
    if (closed) {
      finish(false);
    } else {
      closed = true;
      finish(true);
    }
  }

  /** The listener's last event; the context ends either way, cancelled first when cancelled. */
  private void finish(boolean cancel) {
    finished = true;
    ready = false;
    connection.outboundBudget().wake();
    deliveryStopped = true;
    inbound.release();
    held.drop();
    Status end = ending == null ? Status.CANCELLED : ending;
    hosted.ended(end.getCode().name(), failure);
    // From here the deadline means nothing: cancelling the context below need not tell it.
    context.removeListener(deadline);
    if (cancel) {
      cancelled = true;
      context.cancel(null);
      event(Listener::onCancel);
    } else {
      // The client has its answer: the completion need not wake a service thread of its own.
      events.executeLazily(
          () -> {
            runEvent(Listener::onComplete);
            context.cancel(null);
          });
    }
  }

  /**
   * The server ends the call itself: with a status the client reads ({@code tell}), or a reset (the
   * deadline: the client's own deadline tells it); the service hears onCancel.
   */
  private void abort(Status status, boolean tell) {
    abort(status, tell ? null : Http2Error.CANCEL);
  }

  /**
   * Ends the call with trailers ({@code reset} null) or a reset of that code, which drops what
   * waits for the client's window.
   */
  private void abort(Status status, Http2Error reset) {
    if (!closed) {
      inbound.end();
      deliveryStopped = true;
      closed = true;
      ending = status;
      if (reset == null) {
        held.writeOut();
        writeStatus(status, new Metadata());
      } else {
        held.drop();
        connection.reset(stream, reset);
      }
      connection.flush();
    }
    if (!finished) {
      finish(true);
    }
  }

  /** Trailers (Trailers-Only when nothing was sent yet); a client still sending is stopped. */
  private void writeStatus(Status status, Metadata trailers) {
    Http2Headers h = headersSent ? new DefaultHttp2Headers() : GrpcHeaders.responseHeaders();
    headersSent = true;
    ending = status;
    GrpcHeaders.addStatus(h, status);
    GrpcHeaders.addMetadata(h, trailers);
    connection.writeHeaders(stream, h, true);
    if (!inbound.clientDone()) {
      connection.reset(stream, Http2Error.NO_ERROR);
    }
  }

  /**
   * On the loop, inside a flush: the responses waiting fell under the threshold. The listener hears
   * it in a run of batched writes, so a service on the loop (DIRECT) that sends a burst from its
   * onReady has the burst flushed once, not message by message inside this flush.
   */
  private void readyAgain() {
    connection.onLoopLater(
        () -> {
          if (!closed) {
            event(Listener::onReady);
          }
        });
  }

  private void onLoop(Runnable r) {
    connection.onLoop(r);
  }

  // ServerCall, from any thread.

  @Override
  public void request(int numMessages) {
    if (restHandedOver) {
      events.execute(() -> arrived.request(numMessages));
      return;
    }
    onLoop(
        () -> {
          if (closed) {
            return;
          }
          if (restHandedOver) {
            events.execute(() -> arrived.request(numMessages));
          } else {
            inbound.request(numMessages);
            handOverRest();
          }
        });
  }

  @Override
  public void sendHeaders(Metadata headers) {
    onLoopUnlessTrailersFollow(
        () -> {
          if (closed || headersSent) {
            return;
          }
          headersSent = true;
          connection.writeHeaders(
              stream, GrpcHeaders.addMetadata(responseHeaders(), headers), false);
          connection.flush();
        });
  }

  @Override
  public void sendMessage(RespT message) {
    if (oversent.get()) {
      return;
    }
    byte[] frame = outbound.take(message);
    if (frame == null) {
      if (oversent.compareAndSet(false, true)) {
        log.debug(
            "gRPC call {} ended: it sent past isReady() with its connection over its budget",
            method.getMethodDescriptor().getFullMethodName());
        onLoop(() -> abort(outbound.oversent(), OutboundMessages.OVERSENT));
      }
      return;
    }
    onLoopUnlessTrailersFollow(
        () -> {
          if (closed) {
            outbound.settled(frame.length);
            return;
          }
          if (!headersSent) {
            headersSent = true;
            connection.writeHeaders(stream, responseHeaders(), false);
          }
          // Settled as it reaches the socket (or fails with the stream): until then it counts
          // against isReady, however long the client's window keeps it waiting.
          held.add(frame);
          connection.flush();
        });
  }

  /**
   * A call of one response has its headers and message written with its trailers, which wake the
   * loop; a streaming call's go at once.
   */
  private void onLoopUnlessTrailersFollow(Runnable r) {
    if (oneResponse) {
      connection.onLoopLazily(r);
    } else {
      onLoop(r);
    }
  }

  @Override
  public void close(Status status, Metadata trailers) {
    deliveryStopped = true;
    onLoop(
        () -> {
          if (closed) {
            return;
          }
          inbound.end();
          held.writeOut();
          closed = true;
          ready = false;
          writeStatus(status, trailers);
          connection.flush();
        });
  }

  /** The headers that open the response; they name gzip when the responses use it. */
  private Http2Headers responseHeaders() {
    Http2Headers h = GrpcHeaders.responseHeaders();
    if (outbound.compressed()) {
      h.set(GrpcHeaders.ENCODING, Gzip.NAME);
    }
    return h;
  }

  /**
   * "gzip" compresses the responses when the client accepts gzip (else they go as they are, which
   * gRPC allows); "identity" leaves them alone. Call before {@link #sendHeaders}.
   */
  @Override
  public void setCompression(String compressor) {
    outbound.setCompression(compressor);
  }

  @Override
  public void setMessageCompression(boolean enabled) {
    outbound.setMessageCompression(enabled);
  }

  /** Until the call ends, while less than a threshold of its responses wait to be written. */
  @Override
  public boolean isReady() {
    return ready && outbound.underThreshold();
  }

  @Override
  public boolean isCancelled() {
    return cancelled;
  }

  @Override
  public MethodDescriptor<ReqT, RespT> getMethodDescriptor() {
    return method.getMethodDescriptor();
  }

  @Override
  public Attributes getAttributes() {
    return Attributes.newBuilder()
        .set(Grpc.TRANSPORT_ATTR_REMOTE_ADDR, connection.context().channel().remoteAddress())
        .set(Grpc.TRANSPORT_ATTR_LOCAL_ADDR, connection.context().channel().localAddress())
        .build();
  }

  @Override
  public String getAuthority() {
    return authority;
  }
}
