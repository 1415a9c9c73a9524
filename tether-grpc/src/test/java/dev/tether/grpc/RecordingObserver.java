package dev.tether.grpc;

import io.grpc.stub.StreamObserver;
import java.util.Collection;
import java.util.concurrent.CompletableFuture;

/**
 * A client-side observer that keeps what a call answers in {@code values} and ends {@code done} as
 * the call ends: completed, or failed with its status.
 */
final class RecordingObserver<T> implements StreamObserver<T> {
  private final Collection<? super T> values;
  private final CompletableFuture<Void> done;

  RecordingObserver(Collection<? super T> values, CompletableFuture<Void> done) {
    this.values = values;
    this.done = done;
  }

  @Override
  public void onNext(T value) {
    values.add(value);
  }

  @Override
  public void onError(Throwable t) {
    done.completeExceptionally(t);
  }

  @Override
  public void onCompleted() {
    done.complete(null);
  }
}
