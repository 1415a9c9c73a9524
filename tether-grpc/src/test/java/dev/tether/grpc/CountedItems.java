package dev.tether.grpc;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A stream service's items for tests: item {@code i} is {@code size} bytes starting with {@code i},
 * published only as asked (without recursion, rule 3.3), {@code count} of them or without end
 * (negative); it records how many items it was asked for and whether it was cancelled.
 */
final class CountedItems implements Flow.Publisher<byte[]> {
  final AtomicLong asked = new AtomicLong();
  final CompletableFuture<Void> cancelled = new CompletableFuture<>();
  private final long count;
  private final int size;

  CountedItems(long count, int size) {
    this.count = count;
    this.size = size;
  }

  static int indexOf(byte[] item) {
    return ByteBuffer.wrap(item).getInt();
  }

  @Override
  public void subscribe(Flow.Subscriber<? super byte[]> s) {
    s.onSubscribe(new Emitter(s));
  }

  private final class Emitter implements Flow.Subscription {
    private final Flow.Subscriber<? super byte[]> s;
    private long demand;
    private boolean emitting;
    private boolean done;
    private int next;

    Emitter(Flow.Subscriber<? super byte[]> s) {
      this.s = s;
    }

    @Override
    public void request(long n) {
      asked.addAndGet(n);
      synchronized (this) {
        demand += n;
        if (emitting) {
          return;
        }
        emitting = true;
      }
      while (true) {
        synchronized (this) {
          if (done || (demand == 0 && next != count)) {
            emitting = false;
            return;
          }
          if (next == count) {
            done = true;
          } else {
            demand--;
          }
        }
        if (next == count) {
          s.onComplete();
          return;
        }
        s.onNext(ByteBuffer.allocate(size).putInt(0, next++).array());
      }
    }

    @Override
    public synchronized void cancel() {
      done = true;
      cancelled.complete(null);
    }
  }
}
