package dev.tether.grpc;

import com.google.protobuf.ByteString;
import com.google.protobuf.BytesValue;
import com.google.protobuf.Empty;
import com.google.protobuf.Int64Value;
import com.google.protobuf.Message;
import com.google.protobuf.StringValue;
import io.grpc.MethodDescriptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;

/**
 * The service of {@code src/test/node/interop.proto}, which the Node client calls: gRPC's interop
 * cases with protobuf's well-known wrapper messages, so that neither side needs generated code. Its
 * {@code UnimplementedCall} is left out on purpose.
 */
final class NodeInteropService {
  static final String SERVICE = "tether.testing.node.NodeInterop";

  static final MethodDescriptor<BytesValue, BytesValue> UNARY =
      method("UnaryCall", MethodDescriptor.MethodType.UNARY, BytesValue.getDefaultInstance());

  static final MethodDescriptor<StringValue, BytesValue> STREAMING_OUTPUT =
      method(
          "StreamingOutputCall",
          MethodDescriptor.MethodType.SERVER_STREAMING,
          StringValue.getDefaultInstance(),
          BytesValue.getDefaultInstance());

  static final MethodDescriptor<BytesValue, Int64Value> STREAMING_INPUT =
      method(
          "StreamingInputCall",
          MethodDescriptor.MethodType.CLIENT_STREAMING,
          BytesValue.getDefaultInstance(),
          Int64Value.getDefaultInstance());

  static final MethodDescriptor<StringValue, Empty> STATUS =
      method(
          "StatusCall",
          MethodDescriptor.MethodType.UNARY,
          StringValue.getDefaultInstance(),
          Empty.getDefaultInstance());

  private NodeInteropService() {}

  private static <T extends Message> MethodDescriptor<T, T> method(
      String name, MethodDescriptor.MethodType type, T message) {
    return method(name, type, message, message);
  }

  private static <Q extends Message, R extends Message> MethodDescriptor<Q, R> method(
      String name, MethodDescriptor.MethodType type, Q request, R response) {
    return MethodDescriptor.<Q, R>newBuilder()
        .setType(type)
        .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, name))
        .setRequestMarshaller(ProtoUtils.marshaller(request))
        .setResponseMarshaller(ProtoUtils.marshaller(response))
        .build();
  }

  /** The service with the interceptor that echoes the interop test's custom metadata. */
  static ServerServiceDefinition definition() {
    ServerServiceDefinition plain =
        ServerServiceDefinition.builder(SERVICE)
            .addMethod(UNARY, ServerCalls.asyncUnaryCall(NodeInteropService::echo))
            .addMethod(
                STREAMING_OUTPUT, ServerCalls.asyncServerStreamingCall(NodeInteropService::sizes))
            .addMethod(
                STREAMING_INPUT, ServerCalls.asyncClientStreamingCall(NodeInteropService::total))
            .addMethod(STATUS, ServerCalls.asyncUnaryCall(NodeInteropService::fail))
            .build();
    return ServerInterceptors.intercept(plain, new InteropService.EchoMetadata());
  }

  private static void echo(BytesValue request, StreamObserver<BytesValue> out) {
    out.onNext(request);
    out.onCompleted();
  }

  private static void sizes(StringValue request, StreamObserver<BytesValue> out) {
    for (String size : request.getValue().split(",")) {
      out.onNext(BytesValue.of(ByteString.copyFrom(new byte[Integer.parseInt(size.trim())])));
    }
    out.onCompleted();
  }

  private static StreamObserver<BytesValue> total(StreamObserver<Int64Value> out) {
    return new StreamObserver<>() {
      private long total;

      @Override
      public void onNext(BytesValue value) {
        total += value.getValue().size();
      }

      @Override
      public void onError(Throwable t) {}

      @Override
      public void onCompleted() {
        out.onNext(Int64Value.of(total));
        out.onCompleted();
      }
    };
  }

  private static void fail(StringValue request, StreamObserver<Empty> out) {
    String s = request.getValue();
    int space = s.indexOf(' ');
    out.onError(
        Status.fromCodeValue(Integer.parseInt(s.substring(0, space)))
            .withDescription(s.substring(space + 1))
            .asRuntimeException());
  }
}
