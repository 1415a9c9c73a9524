package dev.tether.opentelemetry;

import dev.tether.ClientInterceptor;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.context.propagation.TextMapSetter;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The spans of one logical call: its CLIENT span, and a child span per attempt once the call takes
 * a second one. The first attempt travels under the CLIENT span itself (a call that succeeds at
 * once needs no attempt span); when a second attempt starts, the first one's span is made after the
 * fact from when it began, and each later attempt carries its own span's context, so a server's
 * SERVER span hangs under the client-side span that carried its request.
 *
 * <p>A retry ends the attempt before it, marked with the retry's reason; a hedge leaves the
 * attempts before it running, and they end with the call. Listener methods come from several Tether
 * threads (a hedged call's attempts at once), so they hold this object's lock; each is a few span
 * operations.
 */
final class CallSpans implements ClientInterceptor.Listener {
  private static final TextMapSetter<ClientInterceptor.AttemptStart> METADATA =
      (attempt, key, value) -> {
        if (attempt != null) {
          attempt.putMetadata(key, value);
        }
      };

  private final Tracer tracer;
  private final TextMapPropagator propagator;
  private final Clock clock;
  private final String method;

  /** The call's {@code rpc.system.name}, which its attempt spans share. */
  private final String system;

  /** The context that holds {@link #call}: the parent of every attempt span. */
  private final Context callContext;

  private final Span call;

  // Guarded by this.
  /** When the first attempt left and where to; set at the first attempt, read at the second. */
  private Instant firstStart;

  private SocketAddress firstAddress;

  /** Attempt spans not yet ended, oldest first; empty while the call made one attempt. */
  private final List<Span> openAttempts = new ArrayList<>(2);

  /**
   * True once the call ended: an attempt still leaving then (a hedge's late retry) gets no span
   * that nobody would end.
   */
  private boolean ended;

  CallSpans(
      Tracer tracer,
      TextMapPropagator propagator,
      Clock clock,
      String method,
      String system,
      Context callContext,
      Span call) {
    this.tracer = tracer;
    this.propagator = propagator;
    this.clock = clock;
    this.method = method;
    this.system = system;
    this.callContext = callContext;
    this.call = call;
  }

  @Override
  public synchronized void onAttempt(ClientInterceptor.AttemptStart attempt) {
    if (ended) {
      propagator.inject(callContext, attempt, METADATA);
      return;
    }
    setServer(call, attempt.serverAddress());
    if (attempt.number() == 1) {
      firstStart = clock.instant();
      firstAddress = attempt.serverAddress();
      propagator.inject(callContext, attempt, METADATA);
      return;
    }
    if (firstStart != null) { // the first attempt's span, made now that there is a second
      openAttempts.add(attemptSpan(1, null, firstAddress, firstStart));
      firstStart = null;
    }
    if (!"HEDGE".equals(attempt.reason()) && !openAttempts.isEmpty()) {
      Span failed = openAttempts.remove(openAttempts.size() - 1);
      failed.setAttribute(RpcAttributes.ERROR_TYPE, attempt.reason());
      failed.setStatus(StatusCode.ERROR, "retried after " + attempt.reason());
      failed.end();
    }
    Span span = attemptSpan(attempt.number(), attempt.reason(), attempt.serverAddress(), null);
    openAttempts.add(span);
    propagator.inject(callContext.with(span), attempt, METADATA);
  }

  /** An attempt's span under the call's; {@code start} null for now. */
  private Span attemptSpan(int number, String reason, SocketAddress server, Instant start) {
    SpanBuilder b =
        RpcAttributes.rpcSpan(
                tracer, method + " attempt", method, SpanKind.INTERNAL, callContext, system)
            .setAttribute(RpcAttributes.ATTEMPT_NUMBER, (long) number);
    if (reason != null) {
      b.setAttribute(RpcAttributes.ATTEMPT_REASON, reason);
    }
    if (start != null) {
      b.setStartTimestamp(start);
    }
    Span span = b.startSpan();
    setServer(span, server);
    return span;
  }

  private static void setServer(Span span, SocketAddress server) {
    if (server instanceof InetSocketAddress inet) {
      span.setAttribute(RpcAttributes.SERVER_ADDRESS, inet.getHostString());
      span.setAttribute(RpcAttributes.SERVER_PORT, (long) inet.getPort());
    }
  }

  @Override
  public synchronized void onEnd(Throwable failure) {
    ended = true;
    RpcStatus status = RpcStatus.of(failure);
    for (int i = 0; i < openAttempts.size(); i++) {
      Span attempt = openAttempts.get(i);
      // The newest attempt takes the call's status: after retries it is the one that decided the
      // call; of a hedged call's attempts, which one won is not known here, so the others get none.
      if (i == openAttempts.size() - 1) {
        mark(attempt, status, null);
      }
      attempt.end();
    }
    openAttempts.clear();
    mark(call, status, failure);
    call.end();
  }

  private static void mark(Span span, RpcStatus status, Throwable failure) {
    span.setAttribute(RpcAttributes.RPC_STATUS_CODE, status.code());
    if (status.errorType() != null) {
      span.setAttribute(RpcAttributes.ERROR_TYPE, status.errorType());
      span.setStatus(
          StatusCode.ERROR, failure == null ? status.code() : String.valueOf(failure.getMessage()));
      if (failure != null) {
        span.recordException(failure);
      }
    }
  }
}
