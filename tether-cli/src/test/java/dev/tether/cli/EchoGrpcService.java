package dev.tether.cli;

import dev.tether.grpc.TetherGrpc;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.MethodDescriptor.MethodType;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The tests' gRPC service, {@code test.Echo}, whose messages are bytes: {@code Echo} answers the
 * request's bytes, {@code Fail} ends NOT_FOUND, {@code Count} streams "1" to "n" for the request
 * "n". It remembers the last call's {@code x-tenant} header and deadline, counts its calls and ends
 * each with the trailer {@code served-by: test.Echo}.
 */
final class EchoGrpcService {
  static final String SERVICE = "test.Echo";
  static final Metadata.Key<String> TENANT =
      Metadata.Key.of("x-tenant", Metadata.ASCII_STRING_MARSHALLER);
  static final Metadata.Key<String> SERVED_BY =
      Metadata.Key.of("served-by", Metadata.ASCII_STRING_MARSHALLER);

  final AtomicReference<String> lastTenant = new AtomicReference<>();
  final AtomicReference<Deadline> lastDeadline = new AtomicReference<>();
  final AtomicLong calls = new AtomicLong();

  ServerServiceDefinition definition() {
    ServerServiceDefinition plain =
        ServerServiceDefinition.builder(SERVICE)
            .addMethod(
                method("Echo", MethodType.UNARY), ServerCalls.asyncUnaryCall(EchoGrpcService::echo))
            .addMethod(
                method("Fail", MethodType.UNARY), ServerCalls.asyncUnaryCall(EchoGrpcService::fail))
            .addMethod(
                method("Count", MethodType.SERVER_STREAMING),
                ServerCalls.asyncServerStreamingCall(EchoGrpcService::count))
            .build();
    return ServerInterceptors.intercept(plain, new Recorder());
  }

  private static MethodDescriptor<byte[], byte[]> method(String name, MethodType type) {
    return MethodDescriptor.newBuilder(TetherGrpc.rawBytes(), TetherGrpc.rawBytes())
        .setType(type)
        .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, name))
        .build();
  }

  private static void echo(byte[] request, StreamObserver<byte[]> responses) {
    responses.onNext(request);
    responses.onCompleted();
  }

  private static void fail(byte[] request, StreamObserver<byte[]> responses) {
    responses.onError(Status.NOT_FOUND.withDescription("no such key: color").asException());
  }

  private static void count(byte[] request, StreamObserver<byte[]> responses) {
    int n = Integer.parseInt(new String(request, StandardCharsets.UTF_8).trim());
    for (int i = 1; i <= n; i++) {
      responses.onNext(String.valueOf(i).getBytes(StandardCharsets.UTF_8));
    }
    responses.onCompleted();
  }

  /** Keeps what each call brought and adds the trailer. */
  private final class Recorder implements ServerInterceptor {
    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(
        ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
      calls.incrementAndGet();
      lastTenant.set(headers.get(TENANT));
      lastDeadline.set(Context.current().getDeadline());
      return next.startCall(
          new SimpleForwardingServerCall<>(call) {
            @Override
            public void close(Status status, Metadata trailers) {
              trailers.put(SERVED_BY, SERVICE);
              super.close(status, trailers);
            }
          },
          headers);
    }
  }
}
