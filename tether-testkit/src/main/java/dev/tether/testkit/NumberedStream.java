package dev.tether.testkit;

import dev.tether.spi.Scheduler;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Flow;
import java.util.function.LongConsumer;

/**
 * A cold publisher of numbered items, the decimal text "1", "2", ... (or from another first
 * number), for a stream service whose receiver checks order, duplicates and gaps by number. Each
 * subscription starts from the first number and emits only what its subscriber asked for: at once,
 * or one item per interval of a pacer. A negative count means without end.
 */
public final class NumberedStream implements Flow.Publisher<byte[]> {
  private final long first;
  private final long count;

  /** Null: as fast as demand allows. */
  private final Duration interval;

  /** Non-null exactly when {@link #interval} is. */
  private final Scheduler pacer;

  private final LongConsumer sent;

  private NumberedStream(
      long first, long count, Duration interval, Scheduler pacer, LongConsumer sent) {
    this.first = first;
    this.count = count;
    this.interval = interval;
    this.pacer = pacer;
    this.sent = sent;
  }

  /**
   * {@code count} items (negative: without end) numbered from 1, each as soon as it is asked for.
   */
  public static NumberedStream of(long count) {
    return new NumberedStream(1, count, null, null, n -> {});
  }

  /**
   * The same items, at most one per {@code interval}, emitted on the thread {@code pacer} runs its
   * tasks on.
   */
  public NumberedStream paced(Duration interval, Scheduler pacer) {
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("the interval must be positive: " + interval);
    }
    return new NumberedStream(first, count, interval, Objects.requireNonNull(pacer), sent);
  }

  /**
   * The same stream numbered from {@code firstNumber}: what a client reopening after item n asks
   * for.
   */
  public NumberedStream startingAt(long firstNumber) {
    return new NumberedStream(firstNumber, count, interval, pacer, sent);
  }

  /** The same stream, telling {@code sent} the number of each item just before it is emitted. */
  public NumberedStream onEachItem(LongConsumer itemSent) {
    return new NumberedStream(first, count, interval, pacer, Objects.requireNonNull(itemSent));
  }

  /** The item numbered {@code n}: its decimal text in ASCII. */
  public static byte[] item(long n) {
    return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * The number an item carries.
   *
   * @throws NumberFormatException when the item is not a decimal number
   */
  public static long number(byte[] item) {
    return Long.parseLong(new String(item, StandardCharsets.US_ASCII));
  }

  /**
   * What a receiver of numbered items saw, checked item by item against the number expected next: a
   * lower number came twice, a higher one skipped those in between. Fed by one subscriber's
   * signals, which come one at a time; any thread may read the counts.
   */
  public static final class Tally {
    private long expectedNext;
    private volatile long items;
    private volatile long duplicates;
    private volatile long gaps;

    /** A tally of a stream numbered from 1. */
    public Tally() {
      this(1);
    }

    /** A tally of a stream whose first item is numbered {@code firstNumber}. */
    public Tally(long firstNumber) {
      this.expectedNext = firstNumber;
    }

    /**
     * Counts one item.
     *
     * @throws NumberFormatException when the item is not a decimal number
     */
    public void add(byte[] item) {
      long n = number(item);
      if (n < expectedNext) {
        duplicates = duplicates + 1; // only the subscriber's thread writes
      } else {
        gaps = gaps + (n - expectedNext);
        expectedNext = n + 1;
      }
      items = items + 1;
    }

    /** Items counted, duplicates included. */
    public long items() {
      return items;
    }

    /** Items whose number had arrived before. */
    public long duplicates() {
      return duplicates;
    }

    /** Numbers skipped between one item and the next. */
    public long gaps() {
      return gaps;
    }
  }

  @Override
  public void subscribe(Flow.Subscriber<? super byte[]> subscriber) {
    Numbering numbering = new Numbering(subscriber);
    subscriber.onSubscribe(numbering);
    if (interval != null) {
      numbering.startPacing();
    }
  }

  /**
   * One subscription. Its monitor serialises the signals: a request arriving while items are being
   * emitted (also from inside {@code onNext}) adds to the demand the running loop drains.
   */
  private final class Numbering implements Flow.Subscription {
    private final Flow.Subscriber<? super byte[]> subscriber;
    private long next = first;
    private long demand;
    private boolean emitting;
    private boolean done;

    /** Non-null while a paced subscription runs. */
    private Scheduler.Cancellable ticks;

    Numbering(Flow.Subscriber<? super byte[]> subscriber) {
      this.subscriber = subscriber;
    }

    /**
     * Schedules the next tick: one at a time, so a slow tick delays the next instead of piling up.
     */
    synchronized void startPacing() {
      if (!done) {
        ticks = pacer.schedule(this::tick, interval.toNanos());
      }
    }

    @Override
    public synchronized void request(long n) {
      if (done) {
        return;
      }
      if (n <= 0) {
        // Reactive Streams rule 3.9: a non-positive request fails the subscription.
        finish();
        subscriber.onError(
            new IllegalArgumentException("request(" + n + "): demand must be positive"));
        return;
      }
      demand = demand + n < 0 ? Long.MAX_VALUE : demand + n;
      if (interval == null) {
        drain(Long.MAX_VALUE);
      }
    }

    private synchronized void tick() {
      drain(1);
      startPacing();
    }

    /** Emits up to {@code most} items the demand allows, then the end when the last was emitted. */
    private void drain(long most) {
      if (emitting) {
        return; // the loop below, further up this thread's stack, sees the new demand
      }
      emitting = true;
      for (long left = most; !done && demand > 0 && left > 0 && !exhausted(); left--) {
        demand--;
        long number = next++;
        sent.accept(number);
        subscriber.onNext(item(number));
      }
      if (!done && exhausted()) {
        finish();
        subscriber.onComplete();
      }
      emitting = false;
    }

    private boolean exhausted() {
      return count >= 0 && next - first >= count;
    }

    @Override
    public synchronized void cancel() {
      finish();
    }

    private void finish() {
      done = true;
      if (ticks != null) {
        ticks.cancel();
      }
    }
  }
}
