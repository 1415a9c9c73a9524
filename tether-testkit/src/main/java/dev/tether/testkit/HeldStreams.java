package dev.tether.testkit;

import dev.tether.CallContext;
import dev.tether.RawStreamService;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Flow;
import java.util.concurrent.SubmissionPublisher;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A stream service whose streams stay open until the test says what they send and when they end:
 * each opening gets a publisher that honours demand ({@link SubmissionPublisher}), kept here, so a
 * test can look at a runtime while its streams are open and again once they ended. {@link Reader}
 * is the client's side: it asks for every item, counts them and hears the end. Thread-safe.
 *
 * <p>The server answers an opening before it runs the service, so a client sees its stream open
 * before the stream is here: a test waits for {@link #subscribed()} before it sends, since an item
 * sent to a publisher nobody subscribed to yet is lost.
 */
public final class HeldStreams implements RawStreamService {
  private final List<SubmissionPublisher<byte[]>> opened = new CopyOnWriteArrayList<>();
  private final AtomicInteger subscribed = new AtomicInteger();

  @Override
  public Flow.Publisher<byte[]> open(
      String operation, byte[] request, Flow.Publisher<byte[]> inbound, CallContext context) {
    SubmissionPublisher<byte[]> items = new SubmissionPublisher<>();
    opened.add(items);
    return subscriber -> {
      // Items submitted once this returns are buffered for the subscriber.
      items.subscribe(subscriber);
      subscribed.incrementAndGet();
    };
  }

  /** Streams opened so far, ended or not. */
  public int opened() {
    return opened.size();
  }

  /**
   * Streams whose items the server has subscribed to, ended or not: from then on what {@link
   * #sendToAll} sends reaches them.
   */
  public int subscribed() {
    return subscribed.get();
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
