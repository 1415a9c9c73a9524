package dev.tether.chaos;

import dev.tether.CallContext;
import dev.tether.RawStreamService;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The stream service the hostile client opens: as many 1 KiB items as the request says (decimal),
 * as fast as the server asks for them, so a server that asked past its bounds would fill its heap
 * at once. It honours demand, as a service must; bounding what it is asked is the server's part.
 */
final class ChaosFlood implements RawStreamService {
  /** The stream service's name. */
  static final String NAME = "chaos-flood";

  static final int ITEM_BYTES = 1024;

  @Override
  public Flow.Publisher<byte[]> open(
      String operation, byte[] request, Flow.Publisher<byte[]> inbound, CallContext context) {
    long items = Long.parseLong(new String(request, StandardCharsets.US_ASCII));
    return subscriber -> subscriber.onSubscribe(new Flood(subscriber, items));
  }

  /** Emits on the thread that asks, up to the demand, one at a time (no reentrant emission). */
  private static final class Flood implements Flow.Subscription {
    private final Flow.Subscriber<? super byte[]> subscriber;
    private final long items;
    private final AtomicLong demand = new AtomicLong();
    private final AtomicBoolean emitting = new AtomicBoolean();
    private volatile boolean cancelled;
    private long sent;

    Flood(Flow.Subscriber<? super byte[]> subscriber, long items) {
      this.subscriber = subscriber;
      this.items = items;
    }

    @Override
    public void request(long n) {
      if (n <= 0) {
        cancelled = true;
        subscriber.onError(new IllegalArgumentException("request(" + n + ")"));
        return;
      }
      demand.accumulateAndGet(n, (a, b) -> a + b < 0 ? Long.MAX_VALUE : a + b);
      drain();
    }

    private void drain() {
      while (!cancelled && demand.get() > 0 && emitting.compareAndSet(false, true)) {
        try {
          while (!cancelled && demand.get() > 0 && sent < items) {
            demand.decrementAndGet();
            sent++;
            subscriber.onNext(new byte[ITEM_BYTES]);
          }
          if (sent == items && !cancelled) {
            cancelled = true;
            subscriber.onComplete();
          }
        } finally {
          emitting.set(false);
        }
      }
    }

    @Override
    public void cancel() {
      cancelled = true;
    }
  }
}
