package dev.tether.grpc;

import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A grpc-java client's call of a streaming method that reads only as asked: {@code ask} messages at
 * first, then one more after each it reads. Holds what it read and its status once closed.
 */
record ReadingCall(
    ClientCall<byte[], byte[]> call, AtomicInteger read, CompletableFuture<Status> closed) {

  /** Sends {@code request}, half-closes and asks for {@code ask} messages (none when 0). */
  static ReadingCall start(
      ManagedChannel channel,
      MethodDescriptor<byte[], byte[]> method,
      byte[] request,
      int ask,
      CallOptions options) {
    AtomicInteger read = new AtomicInteger();
    CompletableFuture<Status> closed = new CompletableFuture<>();
    ClientCall<byte[], byte[]> call = channel.newCall(method, options);
    call.start(
        new ClientCall.Listener<>() {
          @Override
          public void onMessage(byte[] message) {
            read.incrementAndGet();
            call.request(1);
          }

          @Override
          public void onClose(Status status, Metadata trailers) {
            closed.complete(status);
          }
        },
        new Metadata());
    call.sendMessage(request);
    call.halfClose();
    if (ask > 0) {
      call.request(ask);
    }
    return new ReadingCall(call, read, closed);
  }
}
