package dev.tether.opentelemetry;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;

/**
 * The attribute keys the spans carry: those of the OpenTelemetry RPC span conventions of
 * semantic-conventions v1.45.0 (after {@code rpc.response.status_code} became {@code
 * rpc.status_code}), and Tether's own for attempts, and the start every span shares. Kept here
 * rather than taken from the incubating semconv artifact, whose names still move between its
 * releases.
 */
final class RpcAttributes {
  static final AttributeKey<String> RPC_SYSTEM_NAME = AttributeKey.stringKey("rpc.system.name");
  static final AttributeKey<String> RPC_METHOD = AttributeKey.stringKey("rpc.method");
  static final AttributeKey<String> RPC_STATUS_CODE = AttributeKey.stringKey("rpc.status_code");
  static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
  static final AttributeKey<String> SERVER_ADDRESS = AttributeKey.stringKey("server.address");
  static final AttributeKey<Long> SERVER_PORT = AttributeKey.longKey("server.port");
  static final AttributeKey<String> CLIENT_ADDRESS = AttributeKey.stringKey("client.address");
  static final AttributeKey<Long> CLIENT_PORT = AttributeKey.longKey("client.port");

  /** Which attempt of its call a child span is, from 1. */
  static final AttributeKey<Long> ATTEMPT_NUMBER = AttributeKey.longKey("tether.attempt.number");

  /** Why the attempt was made: the outcome of the attempt before it, or HEDGE. */
  static final AttributeKey<String> ATTEMPT_REASON =
      AttributeKey.stringKey("tether.attempt.reason");

  /** The value of {@code rpc.system.name} on every span. */
  static final String SYSTEM = "tether";

  private RpcAttributes() {}

  /**
   * A span of {@code kind} under {@code parent} with the attributes every RPC span carries from its
   * start.
   */
  static SpanBuilder rpcSpan(
      Tracer tracer, String name, String method, SpanKind kind, Context parent) {
    return rpcSpan(tracer, name, method, kind, parent, SYSTEM);
  }

  /**
   * As {@link #rpcSpan(Tracer, String, String, SpanKind, Context)} for a call of {@code system}:
   * {@code "tether"}, or {@code "grpc"} for a gRPC call a Tether server serves.
   */
  static SpanBuilder rpcSpan(
      Tracer tracer, String name, String method, SpanKind kind, Context parent, String system) {
    return tracer
        .spanBuilder(name)
        .setSpanKind(kind)
        .setParent(parent)
        .setAttribute(RPC_SYSTEM_NAME, system)
        .setAttribute(RPC_METHOD, method);
  }
}
