package dev.tether.opentelemetry;

import dev.tether.ClientInterceptor;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.time.Clock;

/**
 * The client interceptor {@link TetherTelemetry} installs: one CLIENT span per logical call named
 * {@code service/operation}, a child of the span current on the caller's thread, handed to a {@link
 * CallSpans} that follows the call's attempts and end. Its {@code rpc.system.name} is the call's
 * protocol: {@code tether}, or {@code grpc} for a gRPC channel's call.
 */
final class ClientTracing implements ClientInterceptor {
  private final Tracer tracer;
  private final TextMapPropagator propagator;
  private final Clock clock;

  ClientTracing(Tracer tracer, TextMapPropagator propagator, Clock clock) {
    this.tracer = tracer;
    this.propagator = propagator;
    this.clock = clock;
  }

  @Override
  public Listener interceptCall(Call call) {
    String method = call.service() + "/" + call.operation();
    Context parent = Context.current();
    String system = call.protocol();
    Span span =
        RpcAttributes.rpcSpan(tracer, method, method, SpanKind.CLIENT, parent, system).startSpan();
    return new CallSpans(tracer, propagator, clock, method, system, parent.with(span), span);
  }

  @Override
  public String toString() {
    return "TetherTelemetry client tracing";
  }
}
