package dev.tether.testkit;

import dev.tether.CallContext;
import dev.tether.RawStreamService;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Flow;
import java.util.concurrent.SubmissionPublisher;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A stream service whose streams stay open until the test says what they send and when they end:
 * each opening gets a publisher that honours demand ({@link SubmissionPublisher}), kept here, so a
 * test can look at a runtime while its streams are open and again once they ended. {@link Reader}
 * is the client's side: it asks for every item, counts them and hears the end. Thread-safe.
 */
public final class HeldStreams implements RawStreamService {
  private final List<SubmissionPublisher<byte[]>> opened = new CopyOnWriteArrayList<>();

  @Override
  public Flow.Publisher<byte[]> open(
      String operation, byte[] request, Flow.Publisher<byte[]> inbound, CallContext context) {
    SubmissionPublisher<byte[]> items = new SubmissionPublisher<>();
    opened.add(items);
    return items;
  }

  /** Streams opened so far, ended or not. */
  public int opened() {
    return opened.size();
  }

  /**
   * Sends {@code item} on every stream opened so far that has not ended (blocks while one lags far
   * behind).
   */
  public void sendToAll(byte[] item) {
    for (SubmissionPublisher<byte[]> p : opened) {
      if (!p.isClosed()) {
        p.submit(item);
      }
    }
  }

  /** Completes every stream opened so far, once the items sent before have gone out. */
  public void completeAll() {
    for (SubmissionPublisher<byte[]> p : opened) {
      p.close();
    }
  }

  /**
   * A subscriber that asks for every item, counts them and completes {@link #done()} with the end.
   */
  public static final class Reader implements Flow.Subscriber<byte[]> {
    private final AtomicLong items = new AtomicLong();
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    private final CompletableFuture<Flow.Subscription> subscription = new CompletableFuture<>();

    @Override
    public void onSubscribe(Flow.Subscription s) {
      subscription.complete(s);
      s.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(byte[] item) {
      items.incrementAndGet();
    }

    @Override
    public void onError(Throwable failure) {
      done.completeExceptionally(failure);
    }

    @Override
    public void onComplete() {
      done.complete(null);
    }

    /** Items received so far. */
    public long items() {
      return items.get();
    }

    /** Completes when the stream ends: normally, or with its failure. */
    public CompletableFuture<Void> done() {
      return done;
    }

    /** Cancels the stream once it is subscribed. */
    public void cancel() {
      subscription.thenAccept(Flow.Subscription::cancel);
    }
  }
}
