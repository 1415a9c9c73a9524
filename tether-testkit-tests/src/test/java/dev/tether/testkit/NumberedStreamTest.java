package dev.tether.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Flow;
import org.junit.jupiter.api.Test;

class NumberedStreamTest {

  /** Keeps the numbers and how the stream ended; asks for nothing by itself. */
  private static final class Numbers implements Flow.Subscriber<byte[]> {
    final List<Long> numbers = new CopyOnWriteArrayList<>();
    volatile Flow.Subscription subscription;
    volatile String end = "open";

    @Override
    public void onSubscribe(Flow.Subscription s) {
      subscription = s;
    }

    @Override
    public void onNext(byte[] item) {
      numbers.add(NumberedStream.number(item));
    }

    @Override
    public void onError(Throwable t) {
      end = "error: " + t.getMessage();
    }

    @Override
    public void onComplete() {
      end = "complete";
    }
  }

  @Test
  void emitsOnlyWhatWasAskedForInOrderAndCompletesAfterTheLast() {
    Numbers subscriber = new Numbers();
    NumberedStream.of(5).subscribe(subscriber);

    subscriber.subscription.request(3);
    assertThat(subscriber.numbers).containsExactly(1L, 2L, 3L);
    assertThat(subscriber.end).isEqualTo("open");

    subscriber.subscription.request(10);
    assertThat(subscriber.numbers).containsExactly(1L, 2L, 3L, 4L, 5L);
    assertThat(subscriber.end).isEqualTo("complete");
  }

  @Test
  void eachSubscriptionStartsAgainFromItsFirstNumber() {
    NumberedStream stream = NumberedStream.of(3).startingAt(41);
    Numbers first = new Numbers();
    Numbers second = new Numbers();

    stream.subscribe(first);
    stream.subscribe(second);
    first.subscription.request(Long.MAX_VALUE);
    second.subscription.request(1);

    assertThat(first.numbers).containsExactly(41L, 42L, 43L);
    assertThat(second.numbers).containsExactly(41L);
  }

  @Test
  void aPacedStreamEmitsOneItemPerIntervalAndNothingWithoutDemand() {
    FakeClock clock = new FakeClock();
    List<Long> sent = new CopyOnWriteArrayList<>();
    Numbers subscriber = new Numbers();
    NumberedStream.of(-1)
        .paced(Duration.ofMillis(100), clock)
        .onEachItem(sent::add)
        .subscribe(subscriber);
    subscriber.subscription.request(2);

    clock.forward(Duration.ofMillis(99));
    assertThat(subscriber.numbers).isEmpty();
    clock.forward(Duration.ofMillis(1));
    assertThat(subscriber.numbers).containsExactly(1L);
    clock.forward(Duration.ofMillis(300));
    assertThat(subscriber.numbers).containsExactly(1L, 2L);
    assertThat(sent).containsExactly(1L, 2L);

    subscriber.subscription.request(1);
    clock.forward(Duration.ofMillis(100));
    assertThat(subscriber.numbers).containsExactly(1L, 2L, 3L);
  }

  @Test
  void cancelStopsThePacingAndNothingMoreArrives() {
    FakeClock clock = new FakeClock();
    Numbers subscriber = new Numbers();
    NumberedStream.of(-1).paced(Duration.ofMillis(10), clock).subscribe(subscriber);
    subscriber.subscription.request(Long.MAX_VALUE);
    clock.forward(Duration.ofMillis(30));

    subscriber.subscription.cancel();
    clock.forward(Duration.ofMillis(100));

    assertThat(subscriber.numbers).containsExactly(1L, 2L, 3L);
    assertThat(clock.pendingTasks()).isZero();
  }

  @Test
  void aTallyCountsDuplicatesAndSkippedNumbers() {
    NumberedStream.Tally tally = new NumberedStream.Tally();

    for (long n : new long[] {1, 2, 2, 5, 6, 3}) {
      tally.add(NumberedStream.item(n));
    }

    assertThat(tally.items()).isEqualTo(6);
    assertThat(tally.duplicates()).as("2 again, then 3 after 6").isEqualTo(2);
    assertThat(tally.gaps()).as("3 and 4 skipped").isEqualTo(2);
  }

  @Test
  void aNonPositiveRequestFailsTheSubscription() {
    Numbers subscriber = new Numbers();
    NumberedStream.of(-1).subscribe(subscriber);

    subscriber.subscription.request(0);
    subscriber.subscription.request(5);

    assertThat(subscriber.end).startsWith("error: request(0)");
    assertThat(subscriber.numbers).isEmpty();
  }
}
