package dev.tether.codec;

import java.util.Objects;
import java.util.concurrent.Flow;
import java.util.function.Function;

/**
 * A publisher of {@code source}'s items, each turned into another by {@code mapping}: how typed
 * streams encode and decode their items. Demand and cancel pass straight through; when the mapping
 * throws, the source is cancelled and the subscriber gets that error, once.
 */
public final class MappedPublisher<A, B> implements Flow.Publisher<B> {
  private final Flow.Publisher<A> source;
  private final Function<? super A, ? extends B> mapping;

  public MappedPublisher(Flow.Publisher<A> source, Function<? super A, ? extends B> mapping) {
    this.source = Objects.requireNonNull(source, "source");
    this.mapping = Objects.requireNonNull(mapping, "mapping");
  }

  @Override
  public void subscribe(Flow.Subscriber<? super B> subscriber) {
    Objects.requireNonNull(subscriber, "subscriber"); // Reactive Streams rule 1.9
    source.subscribe(new Mapping<>(subscriber, mapping));
  }

  /** Signals arrive serially (rule 1.3), so plain fields suffice. */
  private static final class Mapping<A, B> implements Flow.Subscriber<A> {
    private final Flow.Subscriber<? super B> downstream;
    private final Function<? super A, ? extends B> mapping;
    private Flow.Subscription upstream;
    private boolean failed;

    Mapping(Flow.Subscriber<? super B> downstream, Function<? super A, ? extends B> mapping) {
      this.downstream = downstream;
      this.mapping = mapping;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      upstream = subscription;
      downstream.onSubscribe(subscription);
    }

    @Override
    public void onNext(A item) {
      if (failed) {
        return; // the source may still deliver what it had in flight when it was cancelled
      }
      B mapped;
      try {
        mapped = mapping.apply(item);
      } catch (RuntimeException e) {
        failed = true;
        upstream.cancel();
        downstream.onError(e);
        return;
      }
      downstream.onNext(mapped);
    }

    @Override
    public void onError(Throwable failure) {
      if (!failed) {
        failed = true;
        downstream.onError(failure);
      }
    }

    @Override
    public void onComplete() {
      if (!failed) {
        downstream.onComplete();
      }
    }
  }
}
