package dev.tether.opentelemetry;

import dev.tether.CallContext;
import dev.tether.ServerCallObserver;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.net.InetSocketAddress;
import java.util.Map;

/**
 * The server's call observer {@link TetherTelemetry} installs: one SERVER span per execution named
 * {@code service/operation}, whose parent is the trace context the client's propagator put in the
 * request's metadata (the client-side span that carried it), ended with the status sent back. A
 * gRPC call the server serves is traced the same way: its {@code rpc.system.name} is {@code grpc},
 * its parent the {@code traceparent} header, its status gRPC's code name, and it fails (status
 * ERROR, {@code error.type}) only for the statuses gRPC's conventions count as the server's error.
 */
final class ServerTracing implements ServerCallObserver {
  private static final TextMapGetter<Map<String, String>> METADATA =
      (carrier, key) -> carrier == null ? null : carrier.get(key);

  private final Tracer tracer;
  private final TextMapPropagator propagator;

  ServerTracing(Tracer tracer, TextMapPropagator propagator) {
    this.tracer = tracer;
    this.propagator = propagator;
  }

  @Override
  public Execution onExecution(CallContext call) {
    String method = call.service() + "/" + call.operation();
    Context parent = propagator.extract(Context.root(), call.metadata(), METADATA);
    Span span =
        RpcAttributes.rpcSpan(tracer, method, method, SpanKind.SERVER, parent, call.protocol())
            .startSpan();
    if (call.remoteAddress() instanceof InetSocketAddress client) {
      span.setAttribute(RpcAttributes.CLIENT_ADDRESS, client.getHostString());
      span.setAttribute(RpcAttributes.CLIENT_PORT, (long) client.getPort());
    }
    return new ExecutionSpan(parent.with(span), span, call.protocol());
  }

  /** One execution's SERVER span: current while the service method runs, ended with the answer. */
  private record ExecutionSpan(Context context, Span span, String protocol) implements Execution {
    @Override
    public Scope enter() {
      return context.makeCurrent()::close;
    }

    @Override
    public void onEnd(String status, Throwable failure) {
      span.setAttribute(RpcAttributes.RPC_STATUS_CODE, status);
      if (RpcStatus.failsServerSpan(protocol, status)) {
        span.setAttribute(RpcAttributes.ERROR_TYPE, status);
        span.setStatus(
            StatusCode.ERROR, failure == null ? status : String.valueOf(failure.getMessage()));
        if (failure != null) {
          span.recordException(failure);
        }
      }
      span.end();
    }
  }

  @Override
  public String toString() {
    return "TetherTelemetry server tracing";
  }
}
