package dev.tether.grpc;

import io.grpc.Context;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
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

  /** A server stream of {@link #FLOOD_COUNT} messages of 64 KiB, each sent only while ready. */
  static final MethodDescriptor<byte[], byte[]> FLOOD =
      stream("Flood", MethodDescriptor.MethodType.SERVER_STREAMING);

  /** A server stream of three messages that then never ends (until its context does). */
  static final MethodDescriptor<byte[], byte[]> TRICKLE =
      stream("Trickle", MethodDescriptor.MethodType.SERVER_STREAMING);

  static final int FLOOD_COUNT = 64;

  /** A server stream of two messages that then ends with {@link #failWith}, or OK. */
  static final MethodDescriptor<byte[], byte[]> SPILL =
      stream("Spill", MethodDescriptor.MethodType.SERVER_STREAMING);

  /** {@code Spill} streams the server ran. */
  final AtomicInteger spills = new AtomicInteger();

  /** Waits until {@link #gathering} calls run at once, then answers; each call counts down. */
  static final MethodDescriptor<byte[], byte[]> GATHER = method("Gather", false);

  /** How many {@code Gather} calls must run at once before any answers. */
  volatile CountDownLatch gathering = new CountDownLatch(8);

  /** Messages {@code Flood} handed to its transport so far. */
  final AtomicInteger floodSent = new AtomicInteger();

  private final AtomicBoolean floodDone = new AtomicBoolean();

  final String name;
  final AtomicInteger calls = new AtomicInteger();
  final AtomicInteger hangs = new AtomicInteger();

  /** When set, {@code Call} answers with this status instead of the server's name. */
  volatile io.grpc.Status failWith;

  /** When true, {@code Call} holds as {@code Hang} does: a server too slow to answer. */
  volatile boolean holdCalls;

  /** Counts down as each {@code Hang} starts. */
  volatile CountDownLatch hanging = new CountDownLatch(1);

  CountingService(String name) {
    this.name = name;
  }

  private static MethodDescriptor<byte[], byte[]> stream(
      String name, MethodDescriptor.MethodType type) {
    return method(name, false).toBuilder().setType(type).build();
  }

  private static MethodDescriptor<byte[], byte[]> method(String name, boolean idempotent) {
    return MethodDescriptor.<byte[], byte[]>newBuilder()
        .setType(MethodDescriptor.MethodType.UNARY)
        .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, name))
        .setRequestMarshaller(TetherGrpc.rawBytes())
        .setResponseMarshaller(TetherGrpc.rawBytes())
        .setIdempotent(idempotent)
        .build();
  }

  ServerServiceDefinition definition() {
    return ServerServiceDefinition.builder(SERVICE)
        .addMethod(CALL, ServerCalls.asyncUnaryCall(this::call))
        .addMethod(HANG, ServerCalls.asyncUnaryCall((req, out) -> hang()))
        .addMethod(GATHER, ServerCalls.asyncUnaryCall(this::gather))
        .addMethod(FLOOD, ServerCalls.asyncServerStreamingCall(this::flood))
        .addMethod(TRICKLE, ServerCalls.asyncServerStreamingCall(this::trickle))
        .addMethod(SPILL, ServerCalls.asyncServerStreamingCall(this::spill))
        .build();
  }

  private void call(byte[] request, StreamObserver<byte[]> out) {
    calls.incrementAndGet();
    if (holdCalls) {
      hang();
      return;
    }
    io.grpc.Status failure = failWith;
    if (failure != null) {
      out.onError(failure.asRuntimeException());
      return;
    }
    out.onNext(InteropService.text(name));
    out.onCompleted();
  }

  /** Sends while the client's window allows, as a careful grpc-java service does. */
  private void flood(byte[] request, StreamObserver<byte[]> plainOut) {
    ServerCallStreamObserver<byte[]> out = (ServerCallStreamObserver<byte[]>) plainOut;
    out.setOnReadyHandler(
        () -> {
          while (out.isReady() && floodSent.get() < FLOOD_COUNT) {
            floodSent.incrementAndGet();
            out.onNext(new byte[64 * 1024]);
          }
          if (floodSent.get() == FLOOD_COUNT && floodDone.compareAndSet(false, true)) {
            out.onCompleted();
          }
        });
  }

  private void gather(byte[] request, StreamObserver<byte[]> out) {
    CountDownLatch all = gathering;
    all.countDown();
    try {
      if (all.await(20, java.util.concurrent.TimeUnit.SECONDS)) {
        out.onNext(InteropService.text(name));
        out.onCompleted();
      } else {
        out.onError(io.grpc.Status.DEADLINE_EXCEEDED.asRuntimeException());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void spill(byte[] request, StreamObserver<byte[]> out) {
    spills.incrementAndGet();
    out.onNext(InteropService.text(name + 0));
    out.onNext(InteropService.text(name + 1));
    io.grpc.Status failure = failWith;
    if (failure != null) {
      out.onError(failure.asRuntimeException());
    } else {
      out.onCompleted();
    }
  }

  private void trickle(byte[] request, StreamObserver<byte[]> out) {
    for (int i = 0; i < 3; i++) {
      out.onNext(InteropService.text(name + i));
    }
    hang();
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
