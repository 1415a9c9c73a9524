package dev.tether.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** A node's last answers: the oldest drop out as new ones come, and a clear forgets them all. */
class RecentAnswersTest {
  @Test
  void keepsOnlyTheLastAnswersOldestDroppingOutFirst() {
    RecentAnswers answers = new RecentAnswers(4);
    answers.add(false);
    answers.add(false);
    answers.add(true);
    assertThat(answers.sums()).containsExactly(2, 1);

    answers.add(true);
    answers.add(true); // pushes out the first good answer
    assertThat(answers.sums()).containsExactly(1, 3);

    answers.add(false);
    answers.add(false);
    answers.add(false); // pushes out the three failed ones
    assertThat(answers.sums()).containsExactly(3, 1);
  }

  @Test
  void clearForgetsEveryAnswerAndCountsAfreshFromThere() {
    RecentAnswers answers = new RecentAnswers(3);
    for (int i = 0; i < 7; i++) {
      answers.add(true);
    }

    answers.clear();
    assertThat(answers.sums()).containsExactly(0, 0);

    answers.add(true);
    assertThat(answers.sums()).containsExactly(0, 1);
  }

  @Test
  void answersAddedFromManyThreadsAtOnceAreEachCountedOnce() throws Exception {
    RecentAnswers answers = new RecentAnswers(1_000);
    Thread[] threads = new Thread[4];
    for (int t = 0; t < threads.length; t++) {
      boolean failed = t % 2 == 0;
      threads[t] =
          new Thread(
              () -> {
                for (int i = 0; i < 250; i++) {
                  answers.add(failed);
                }
              });
      threads[t].start();
    }
    for (Thread t : threads) {
      t.join();
    }

    assertThat(answers.sums()).containsExactly(500, 500);
  }

  @Test
  void windowOfNoAnswersIsRefusedWithTheFigure() {
    assertThatThrownBy(() -> new RecentAnswers(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a node keeps at least 1 recent answer, got 0");
  }
}
