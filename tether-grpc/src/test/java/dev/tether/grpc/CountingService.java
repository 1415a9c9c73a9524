package dev.tether.grpc;

import io.grpc.Context;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A service that counts the calls it runs, for the at-most-once tests: {@code Call} answers the
 * server's name, {@code Hang} starts and never answers (it holds its thread until its context
 * ends). The client's descriptors say which methods are idempotent; the server does not care.
 */
final class CountingService {
  static final String SERVICE = "tether.testing.Counting";

  static final MethodDescriptor<byte[], byte[]> CALL = method("Call", false);
  static final MethodDescriptor<byte[], byte[]> IDEMPOTENT_CALL = method("Call", true);
  static final MethodDescriptor<byte[], byte[]> HANG = method("Hang", false);
  static final MethodDescriptor<byte[], byte[]> IDEMPOTENT_HANG = method("Hang", true);

  final String name;
  final AtomicInteger calls = new AtomicInteger();
  final AtomicInteger hangs = new AtomicInteger();

  /** Counts down as each {@code Hang} starts. */
  volatile CountDownLatch hanging = new CountDownLatch(1);

  CountingService(String name) {
    this.name = name;
  }

  private static MethodDescriptor<byte[], byte[]> method(String name, boolean idempotent) {
    return MethodDescriptor.<byte[], byte[]>newBuilder()
        .setType(MethodDescriptor.MethodType.UNARY)
        .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, name))
        .setRequestMarshaller(InteropService.BYTES)
        .setResponseMarshaller(InteropService.BYTES)
        .setIdempotent(idempotent)
        .build();
  }

  ServerServiceDefinition definition() {
    return ServerServiceDefinition.builder(SERVICE)
        .addMethod(CALL, ServerCalls.asyncUnaryCall(this::call))
        .addMethod(HANG, ServerCalls.asyncUnaryCall((req, out) -> hang()))
        .build();
  }

  private void call(byte[] request, StreamObserver<byte[]> out) {
    calls.incrementAndGet();
    out.onNext(InteropService.text(name));
    out.onCompleted();
  }

  private void hang() {
    hangs.incrementAndGet();
    hanging.countDown();
    CountDownLatch ended = new CountDownLatch(1);
    Context.current().addListener(c -> ended.countDown(), Runnable::run);
    try {
      ended.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
