package dev.tether.cli.kv;

import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.MethodDescriptorProto;
import com.google.protobuf.DescriptorProtos.ServiceDescriptorProto;
import com.google.protobuf.Descriptors;
import com.google.protobuf.Descriptors.DescriptorValidationException;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.Int64Value;
import com.google.protobuf.Message;
import com.google.protobuf.StringValue;
import com.google.protobuf.WrappersProto;
import dev.tether.TetherServer;
import dev.tether.grpc.TetherGrpc;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServiceDescriptor;
import io.grpc.Status;
import io.grpc.protobuf.ProtoFileDescriptorSupplier;
import io.grpc.protobuf.ProtoServiceDescriptorSupplier;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;

/**
 * The demo for gRPC clients on a demo server's own port: {@code tether.demo.Echo} with {@code Echo}
 * (a string back) and {@code Count} (a server stream of 1..n), whose messages are protobuf's
 * well-known wrappers, with a protobuf descriptor so that reflection describes it; beside it
 * grpc-java's health and reflection services, so grpcurl lists and calls it with no .proto at hand.
 */
public final class GrpcDemo {
  /** The gRPC name of the demo service. */
  public static final String SERVICE = "tether.demo.Echo";

  /** Answers its request unchanged. */
  public static final MethodDescriptor<StringValue, StringValue> ECHO =
      method("Echo", MethodDescriptor.MethodType.UNARY, StringValue.getDefaultInstance());

  /** Request n: the numbers 1 to n, one message each, as fast as the client reads. */
  public static final MethodDescriptor<Int64Value, Int64Value> COUNT =
      method(
          "Count", MethodDescriptor.MethodType.SERVER_STREAMING, Int64Value.getDefaultInstance());

  /** More than a demo stream needs; a larger request is refused rather than run for hours. */
  private static final long MAX_COUNT = 100_000;

  private static final FileDescriptor FILE = describe();

  private GrpcDemo() {}

  /**
   * Makes {@code server} serve the demo, health and reflection to gRPC clients too; each Echo call
   * and Count item is counted in {@code stats} like the Tether services' own.
   */
  public static TetherServer.Builder configure(TetherServer.Builder server, ServerStats stats) {
    return TetherGrpc.server().service(definition(stats)).health().reflection().configure(server);
  }

  static ServerServiceDefinition definition(ServerStats stats) {
    ServiceDescriptor descriptor =
        ServiceDescriptor.newBuilder(SERVICE)
            .setSchemaDescriptor(new Schema())
            .addMethod(ECHO)
            .addMethod(COUNT)
            .build();
    return ServerServiceDefinition.builder(descriptor)
        .addMethod(ECHO, ServerCalls.asyncUnaryCall((req, out) -> echo(req, out, stats)))
        .addMethod(
            COUNT, ServerCalls.asyncServerStreamingCall((req, out) -> count(req, out, stats)))
        .build();
  }

  private static void echo(
      StringValue request, StreamObserver<StringValue> out, ServerStats stats) {
    stats.callServed();
    out.onNext(request);
    out.onCompleted();
  }

  private static void count(Int64Value request, StreamObserver<Int64Value> out, ServerStats stats) {
    long n = request.getValue();
    if (n < 0 || n > MAX_COUNT) {
      out.onError(
          Status.INVALID_ARGUMENT
              .withDescription("Count takes 0 to " + MAX_COUNT + "; got " + n)
              .asRuntimeException());
      return;
    }
    for (long i = 1; i <= n; i++) {
      out.onNext(Int64Value.of(i));
      stats.itemStreamed();
    }
    out.onCompleted();
  }

  private static <T extends Message> MethodDescriptor<T, T> method(
      String name, MethodDescriptor.MethodType type, T message) {
    return MethodDescriptor.<T, T>newBuilder()
        .setType(type)
        .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, name))
        .setRequestMarshaller(ProtoUtils.marshaller(message))
        .setResponseMarshaller(ProtoUtils.marshaller(message))
        .build();
  }

  /** What a tether/demo/echo.proto would compile to, built here so the CLI needs no protoc. */
  private static FileDescriptor describe() {
    FileDescriptorProto file =
        FileDescriptorProto.newBuilder()
            .setName("tether/demo/echo.proto")
            .setPackage("tether.demo")
            .setSyntax("proto3")
            .addDependency(WrappersProto.getDescriptor().getName())
            .addService(
                ServiceDescriptorProto.newBuilder()
                    .setName("Echo")
                    .addMethod(
                        MethodDescriptorProto.newBuilder()
                            .setName("Echo")
                            .setInputType(".google.protobuf.StringValue")
                            .setOutputType(".google.protobuf.StringValue"))
                    .addMethod(
                        MethodDescriptorProto.newBuilder()
                            .setName("Count")
                            .setInputType(".google.protobuf.Int64Value")
                            .setOutputType(".google.protobuf.Int64Value")
                            .setServerStreaming(true)))
            .build();
    try {
      return FileDescriptor.buildFrom(file, new FileDescriptor[] {WrappersProto.getDescriptor()});
    } catch (DescriptorValidationException e) {
      throw new IllegalStateException("the demo's own descriptor is invalid", e);
    }
  }

  /** What reflection reads from a service's schema descriptor, as generated code provides it. */
  private static final class Schema
      implements ProtoFileDescriptorSupplier, ProtoServiceDescriptorSupplier {
    @Override
    public FileDescriptor getFileDescriptor() {
      return FILE;
    }

    @Override
    public Descriptors.ServiceDescriptor getServiceDescriptor() {
      return FILE.findServiceByName("Echo");
    }
  }
}
