package dev.tether.bench;

import java.nio.ByteBuffer;
import java.util.concurrent.Flow;

/**
 * Stream items that carry the {@link System#nanoTime()} of their making in their first 8 bytes, so
 * the receiver can tell an item's age; and a cold publisher of such items without end, each made on
 * the thread that asked for it and only when asked (it honours demand and cancel). On Linux
 * nanoTime is the machine's monotonic clock, so a stamp from another JVM on the same machine reads
 * the same.
 */
final class StampedItems implements Flow.Publisher<byte[]> {
  /** The smallest item that holds a stamp. */
  static final int MIN_BYTES = Long.BYTES;

  private final int itemBytes;

  StampedItems(int itemBytes) {
    if (itemBytes < MIN_BYTES) {
      throw new IllegalArgumentException(
          "stamped items need at least " + MIN_BYTES + " bytes, got " + itemBytes);
    }
    this.itemBytes = itemBytes;
  }

  /** A new item of {@code bytes} stamped now. */
  static byte[] stamped(int bytes) {
    byte[] item = new byte[bytes];
    ByteBuffer.wrap(item).putLong(System.nanoTime());
    return item;
  }

  /** Nanoseconds since {@code item} was stamped, read at {@code nowNanos}. */
  static long ageNanos(byte[] item, long nowNanos) {
    return nowNanos - ByteBuffer.wrap(item).getLong();
  }

  /** The item size a stream request names (its 4 bytes), checked. */
  static int sizeOf(byte[] request) {
    return request.length == Integer.BYTES ? ByteBuffer.wrap(request).getInt() : -1;
  }

  /** The request asking for items of {@code bytes}. */
  static byte[] request(int bytes) {
    return ByteBuffer.allocate(Integer.BYTES).putInt(bytes).array();
  }

  @Override
  public void subscribe(Flow.Subscriber<? super byte[]> subscriber) {
    subscriber.onSubscribe(new Subscription(subscriber));
  }

  private final class Subscription implements Flow.Subscription {
    private final Flow.Subscriber<? super byte[]> subscriber;
    private long demand;
    private boolean emitting;
    private volatile boolean cancelled;

    Subscription(Flow.Subscriber<? super byte[]> subscriber) {
      this.subscriber = subscriber;
    }

    @Override
    public void request(long n) {
      if (n <= 0) { // Reactive Streams rule 3.9
        cancelled = true;
        subscriber.onError(
            new IllegalArgumentException("request(" + n + "): demand must be positive"));
        return;
      }
      synchronized (this) {
        demand = demand + n < 0 ? Long.MAX_VALUE : demand + n;
        if (emitting) {
          return; // the loop below takes the new demand
        }
        emitting = true;
      }
      while (true) {
        synchronized (this) {
          if (cancelled || demand == 0) {
            emitting = false;
            return;
          }
          demand--;
        }
        subscriber.onNext(stamped(itemBytes));
      }
    }

    @Override
    public void cancel() {
      cancelled = true;
    }
  }
}
