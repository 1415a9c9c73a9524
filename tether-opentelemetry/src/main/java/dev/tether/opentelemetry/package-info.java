/**
 * OpenTelemetry tracing for Tether on the OpenTelemetry API alone: {@link
 * dev.tether.opentelemetry.TetherTelemetry} puts a CLIENT span around each logical call (with a
 * child span per attempt once a call takes more than one), a SERVER span around each execution, and
 * carries the trace context between them in the call's metadata through the configured propagators.
 * It follows the OpenTelemetry RPC span conventions of semantic-conventions v1.45.0 ({@code
 * rpc.system.name}, {@code rpc.method}, {@code rpc.status_code}, {@code error.type}).
 */
package dev.tether.opentelemetry;
