package dev.tether.grpc;

import io.grpc.Context;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The service gRPC's interop test descriptions call for, written here with hand-built method
 * descriptors and raw bytes as messages (no code generation): the same {@code ServerCalls} adapters
 * generated {@code *ImplBase} classes use. Requests that name sizes or statuses are UTF-8 text.
 */
final class InteropService {
  static final String SERVICE = "tether.testing.Interop";

  static final MethodDescriptor<byte[], byte[]> EMPTY = unary("EmptyCall");

  /** Echoes its request. */
  static final MethodDescriptor<byte[], byte[]> UNARY = unary("UnaryCall");

  /** Request "code message": answers that status. */
  static final MethodDescriptor<byte[], byte[]> STATUS = unary("StatusCall");

  /** Waits for its context to end (cancelled or past its deadline); never answers. */
  static final MethodDescriptor<byte[], byte[]> SLEEP = unary("SleepCall");

  /** Request "10,20": one response message per size. */
  static final MethodDescriptor<byte[], byte[]> STREAMING_OUTPUT =
      method("StreamingOutputCall", MethodDescriptor.MethodType.SERVER_STREAMING);

  /** Answers the total size of the messages received, as text. */
  static final MethodDescriptor<byte[], byte[]> STREAMING_INPUT =
      method("StreamingInputCall", MethodDescriptor.MethodType.CLIENT_STREAMING);

  /** Echoes each message as it arrives; completes when the client does. */
  static final MethodDescriptor<byte[], byte[]> FULL_DUPLEX =
      method("FullDuplexCall", MethodDescriptor.MethodType.BIDI_STREAMING);

  static final Metadata.Key<String> ECHO_INITIAL =
      Metadata.Key.of("x-grpc-test-echo-initial", Metadata.ASCII_STRING_MARSHALLER);
  static final Metadata.Key<byte[]> ECHO_TRAILING =
      Metadata.Key.of("x-grpc-test-echo-trailing-bin", Metadata.BINARY_BYTE_MARSHALLER);

  /** The context of every call the service started, in order: tests watch them end. */
  final BlockingQueue<Context> contexts = new LinkedBlockingQueue<>();

  private static MethodDescriptor<byte[], byte[]> unary(String name) {
    return method(name, MethodDescriptor.MethodType.UNARY);
  }

  private static MethodDescriptor<byte[], byte[]> method(
      String name, MethodDescriptor.MethodType type) {
    return MethodDescriptor.<byte[], byte[]>newBuilder()
        .setType(type)
        .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, name))
        .setRequestMarshaller(TetherGrpc.rawBytes())
        .setResponseMarshaller(TetherGrpc.rawBytes())
        .build();
  }

  static byte[] text(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  /** The service, with the interceptor that echoes the custom metadata, as a user would bind it. */
  ServerServiceDefinition definition() {
    ServerServiceDefinition plain =
        ServerServiceDefinition.builder(SERVICE)
            .addMethod(EMPTY, ServerCalls.asyncUnaryCall((req, out) -> answer(out, new byte[0])))
            .addMethod(UNARY, ServerCalls.asyncUnaryCall((req, out) -> answer(out, req)))
            .addMethod(STATUS, ServerCalls.asyncUnaryCall(this::status))
            .addMethod(SLEEP, ServerCalls.asyncUnaryCall((req, out) -> sleep()))
            .addMethod(STREAMING_OUTPUT, ServerCalls.asyncServerStreamingCall(this::streamOut))
            .addMethod(STREAMING_INPUT, ServerCalls.asyncClientStreamingCall(this::streamIn))
            .addMethod(FULL_DUPLEX, ServerCalls.asyncBidiStreamingCall(this::duplex))
            .build();
    return ServerInterceptors.intercept(plain, new EchoMetadata(), new RecordContext());
  }

  private static void answer(StreamObserver<byte[]> out, byte[] response) {
    out.onNext(response);
    out.onCompleted();
  }

  private void status(byte[] request, StreamObserver<byte[]> out) {
    String s = text(request);
    int space = s.indexOf(' ');
    out.onError(
        Status.fromCodeValue(Integer.parseInt(s.substring(0, space)))
            .withDescription(s.substring(space + 1))
            .asRuntimeException());
  }

  /** A sleeping server: holds its thread until the call's context ends, never by the clock. */
  private void sleep() {
    Context c = Context.current();
    java.util.concurrent.CountDownLatch ended = new java.util.concurrent.CountDownLatch(1);
    c.addListener(x -> ended.countDown(), Runnable::run);
    try {
      ended.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void streamOut(byte[] request, StreamObserver<byte[]> out) {
    for (String size : text(request).split(",")) {
      out.onNext(new byte[Integer.parseInt(size.trim())]);
    }
    out.onCompleted();
  }

  private StreamObserver<byte[]> streamIn(StreamObserver<byte[]> out) {
    return new StreamObserver<>() {
      private long total;

      @Override
      public void onNext(byte[] value) {
        total += value.length;
      }

      @Override
      public void onError(Throwable t) {}

      @Override
      public void onCompleted() {
        answer(out, text(Long.toString(total)));
      }
    };
  }

  private StreamObserver<byte[]> duplex(StreamObserver<byte[]> out) {
    return new StreamObserver<>() {
      @Override
      public void onNext(byte[] value) {
        out.onNext(value);
      }

      @Override
      public void onError(Throwable t) {}

      @Override
      public void onCompleted() {
        out.onCompleted();
      }
    };
  }

  /** Echoes the custom metadata the interop test sends: initial back as initial, trailing too. */
  static final class EchoMetadata implements ServerInterceptor {
    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
        ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
      String initial = headers.get(ECHO_INITIAL);
      byte[] trailing = headers.get(ECHO_TRAILING);
      return next.startCall(
          new io.grpc.ForwardingServerCall.SimpleForwardingServerCall<>(call) {
            @Override
            public void sendHeaders(Metadata responseHeaders) {
              if (initial != null) {
                responseHeaders.put(ECHO_INITIAL, initial);
              }
              super.sendHeaders(responseHeaders);
            }

            @Override
            public void close(Status status, Metadata trailers) {
              if (trailing != null) {
                trailers.put(ECHO_TRAILING, trailing);
              }
              super.close(status, trailers);
            }
          },
          headers);
    }
  }

  /** Keeps each call's context for the tests. */
  private final class RecordContext implements ServerInterceptor {
    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
        ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
      contexts.add(Context.current());
      return next.startCall(call, headers);
    }
  }
}
