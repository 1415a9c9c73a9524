package dev.tether;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A cold publisher of the items "1", "2", ... up to {@code count} (or without end for a negative
 * count), each emitted on the thread that asked for it and only when asked: what a stream test uses
 * to see how much demand reached the service, whether it was cancelled, and how often opened.
 */
public final class NumberedItems implements Flow.Publisher<byte[]> {
  private final long count;
  private final java.util.function.LongFunction<byte[]> itemOf;
  private final AtomicLong requested = new AtomicLong();
  private final AtomicLong emitted = new AtomicLong();
  private final AtomicInteger subscriptions = new AtomicInteger();
  private final AtomicInteger cancels = new AtomicInteger();

  public NumberedItems(long count) {
    this(count, NumberedItems::item);
  }

  /** Items made by {@code itemOf(n)} for n from 1 instead of the numbers themselves. */
  public NumberedItems(long count, java.util.function.LongFunction<byte[]> itemOf) {
    this.count = count;
    this.itemOf = itemOf;
  }

  /** How much every subscriber together asked for. */
  public long requested() {
    return requested.get();
  }

  public long emitted() {
    return emitted.get();
  }

  public int subscriptions() {
    return subscriptions.get();
  }

  public int cancels() {
    return cancels.get();
  }

  /**
   * A stream service whose request is the count in ASCII ("-1": without end), each stream's
   * publisher added to {@code opened} (a thread-safe list, or null to keep none).
   */
  public static dev.tether.RawStreamService counting(java.util.List<NumberedItems> opened) {
    return (operation, request, inbound, ctx) -> {
      NumberedItems items =
          new NumberedItems(Long.parseLong(new String(request, StandardCharsets.US_ASCII)));
      if (opened != null) {
        opened.add(items);
      }
      return items;
    };
  }

  public static byte[] item(long n) {
    return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
  }

  public static long number(byte[] item) {
    return Long.parseLong(new String(item, StandardCharsets.US_ASCII));
  }

  @Override
  public void subscribe(Flow.Subscriber<? super byte[]> subscriber) {
    subscriptions.incrementAndGet();
    subscriber.onSubscribe(
        new Flow.Subscription() {
          private long next = 1;
          private long demand;
          private boolean emitting;
          private boolean done;

          @Override
          public synchronized void request(long n) {
            requested.addAndGet(n);
            demand += n;
            if (emitting) {
              return; // the loop below sees the new demand
            }
            emitting = true;
            while (!done && demand > 0 && (count < 0 || next <= count)) {
              demand--;
              emitted.incrementAndGet();
              subscriber.onNext(itemOf.apply(next++));
            }
            if (!done && count >= 0 && next > count) {
              done = true;
              subscriber.onComplete();
            }
            emitting = false;
          }

          @Override
          public synchronized void cancel() {
            if (!done) {
              done = true;
              cancels.incrementAndGet();
            }
          }
        });
  }
}
