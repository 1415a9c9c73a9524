package dev.tether;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A publisher the test drives by hand: it keeps its one subscriber, counts what that subscriber
 * asked for and whether it cancelled, and sends the items, completion or failure the test tells it
 * to, on the test's thread. It checks nothing itself, so a test can make it break the rules too.
 */
public final class ManualPublisher implements Flow.Publisher<byte[]> {
  private final AtomicLong requested = new AtomicLong();
  private volatile Flow.Subscriber<? super byte[]> subscriber;
  private volatile boolean cancelled;

  @Override
  public void subscribe(Flow.Subscriber<? super byte[]> s) {
    subscriber = s;
    s.onSubscribe(
        new Flow.Subscription() {
          @Override
          public void request(long n) {
            requested.addAndGet(n);
          }

          @Override
          public void cancel() {
            cancelled = true;
          }
        });
  }

  /** Sends each of {@code items} as its ASCII bytes. */
  public void emit(String... items) {
    for (String item : items) {
      subscriber.onNext(item.getBytes(StandardCharsets.US_ASCII));
    }
  }

  /** Sends {@code count} items of {@code bytes} bytes each. */
  public void emitSized(int count, int bytes) {
    for (int i = 0; i < count; i++) {
      subscriber.onNext(new byte[bytes]);
    }
  }

  public void complete() {
    subscriber.onComplete();
  }

  public void fail(Throwable failure) {
    subscriber.onError(failure);
  }

  /** Everything the subscriber asked for so far. */
  public long requested() {
    return requested.get();
  }

  public boolean isCancelled() {
    return cancelled;
  }

  public boolean isSubscribed() {
    return subscriber != null;
  }
}
