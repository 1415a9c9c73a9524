package dev.tether.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SlidingCountsTest {
  private static final long SECOND = 1_000_000_000L;

  @Test
  void countsLeaveTheWindowOneSecondAtATime() {
    SlidingCounts counts = new SlidingCounts();
    for (long s = 0; s <= 12; s++) {
      counts.addFirst(s * SECOND + SECOND / 2);
      counts.addSecond(s * SECOND + SECOND / 2);
    }
    // Seconds 3 to 12 are the window ending at 12.9 s.
    assertThat(counts.sums(12 * SECOND + 9 * SECOND / 10)).containsExactly(10, 10);
    assertThat(counts.sums(13 * SECOND)).containsExactly(9, 9);
  }

  @Test
  void aLateCountForAnEarlierSecondLandsInThatSecondNotInTheNewestOne() {
    SlidingCounts counts = new SlidingCounts();
    counts.addFirst(5 * SECOND + SECOND / 2);
    // A thread that read the clock just before the second turned adds after a newer count.
    counts.addFirst(5 * SECOND - 1);
    assertThat(counts.sums(5 * SECOND + SECOND / 2)).containsExactly(2, 0);
    // Second 4 has left the window ending in second 14; second 5 has not.
    assertThat(counts.sums(14 * SECOND + SECOND / 2)).containsExactly(1, 0);
  }

  @Test
  void countsAtNegativeTicksArePlacedLikeAnyOthers() {
    SlidingCounts counts = new SlidingCounts();
    counts.addFirst(-1);
    counts.addFirst(-SECOND);
    counts.addFirst(0);
    assertThat(counts.sums(0)).containsExactly(3, 0);
    assertThat(counts.sums(9 * SECOND)).containsExactly(1, 0);
  }

  @Test
  void clearForgetsEveryBucket() {
    SlidingCounts counts = new SlidingCounts();
    counts.addFirst(SECOND);
    counts.addSecond(2 * SECOND);
    counts.clear();
    counts.addFirst(2 * SECOND);
    assertThat(counts.sums(2 * SECOND)).containsExactly(1, 0);
  }

  @Test
  void addsFromTwoThreadsAtOnceAreAllCounted() throws Exception {
    SlidingCounts counts = new SlidingCounts();
    int each = 200_000;
    Runnable adding =
        () -> {
          for (int i = 0; i < each; i++) {
            counts.addFirst(7 * SECOND + i);
          }
        };
    CompletableFuture<Void> other = CompletableFuture.runAsync(adding);
    adding.run();
    other.get(30, TimeUnit.SECONDS);
    assertThat(counts.sums(7 * SECOND)).containsExactly(2L * each, 0);
  }
}
