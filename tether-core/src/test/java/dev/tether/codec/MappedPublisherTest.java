package dev.tether.codec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.CollectingSubscriber;
import dev.tether.NumberedItems;
import org.junit.jupiter.api.Test;

/**
 * How typed streams map their items: demand passes through, a failing mapping ends the stream once.
 */
class MappedPublisherTest {

  @Test
  void mapsEachItemAndPassesDemandThrough() {
    NumberedItems source = new NumberedItems(100);
    CollectingSubscriber subscriber = new CollectingSubscriber(5);

    new MappedPublisher<>(
            source, (byte[] item) -> NumberedItems.item(NumberedItems.number(item) * 10))
        .subscribe(subscriber);

    assertThat(subscriber.numbers()).containsExactly(10L, 20L, 30L, 40L, 50L);
    assertThat(source.requested()).isEqualTo(5);
  }

  @Test
  void failingMappingCancelsTheSourceAndSignalsTheErrorOnce() {
    NumberedItems source = new NumberedItems(100);
    CollectingSubscriber subscriber = CollectingSubscriber.unbounded();

    new MappedPublisher<>(
            source,
            (byte[] item) -> {
              if (NumberedItems.number(item) == 3) {
                throw new IllegalArgumentException("item 3 does not decode");
              }
              return item;
            })
        .subscribe(subscriber);

    assertThat(subscriber.numbers()).containsExactly(1L, 2L);
    assertThat(subscriber.done()).isCompletedExceptionally();
    assertThat(subscriber.done().handle((v, e) -> e).join()).hasMessageContaining("item 3");
    assertThat(source.cancels()).isEqualTo(1);
    assertThat(subscriber.signalsAfterEnd()).isZero();
  }
}
