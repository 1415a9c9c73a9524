package dev.tether;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Flow;

/**
 * A subscriber that keeps every item and its end, asking for {@code initialDemand} items when
 * subscribed and for more only when the test says so ({@link #request}); {@link #done()} completes
 * with the end (normally or with the error).
 */
public final class CollectingSubscriber implements Flow.Subscriber<byte[]> {
  private final long initialDemand;
  private final List<byte[]> items = new CopyOnWriteArrayList<>();
  private final CompletableFuture<Void> done = new CompletableFuture<>();
  private final CompletableFuture<Flow.Subscription> subscribed = new CompletableFuture<>();
  private volatile int signalsAfterEnd;

  public CollectingSubscriber(long initialDemand) {
    this.initialDemand = initialDemand;
  }

  /** Asks for everything. */
  public static CollectingSubscriber unbounded() {
    return new CollectingSubscriber(Long.MAX_VALUE);
  }

  @Override
  public void onSubscribe(Flow.Subscription s) {
    subscribed.complete(s);
    if (initialDemand > 0) {
      s.request(initialDemand);
    }
  }

  @Override
  public void onNext(byte[] item) {
    if (done.isDone()) {
      signalsAfterEnd++;
    }
    items.add(item);
  }

  @Override
  public void onError(Throwable failure) {
    if (!done.completeExceptionally(failure)) {
      signalsAfterEnd++;
    }
  }

  @Override
  public void onComplete() {
    if (!done.complete(null)) {
      signalsAfterEnd++;
    }
  }

  public void request(long n) {
    subscribed.join().request(n);
  }

  public void cancel() {
    subscribed.join().cancel();
  }

  public List<byte[]> items() {
    return items;
  }

  /** The items as the numbers {@link NumberedItems} sent. */
  public List<Long> numbers() {
    return items.stream().map(NumberedItems::number).toList();
  }

  public CompletableFuture<Void> done() {
    return done;
  }

  /** Signals that came after the end: a Reactive Streams violation when not 0. */
  public int signalsAfterEnd() {
    return signalsAfterEnd;
  }
}
