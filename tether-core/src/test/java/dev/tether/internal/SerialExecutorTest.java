package dev.tether.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The control executor: one task at a time, in order, on the submitting thread when it is free. */
class SerialExecutorTest {
  private final SerialExecutor control = new SerialExecutor();

  @Test
  void taskRunsAtOnceOnTheSubmittingThreadWhenNoneRuns() {
    List<Thread> ranOn = new ArrayList<>();

    control.execute(() -> ranOn.add(Thread.currentThread()));

    assertThat(ranOn).containsExactly(Thread.currentThread());
  }

  @Test
  void taskSubmittedByATaskRunsAfterItNotInsideIt() {
    List<String> order = new ArrayList<>();

    control.execute(
        () -> {
          control.execute(() -> order.add("inner"));
          order.add("outer done");
        });

    assertThat(order).containsExactly("outer done", "inner");
  }

  @Test
  void inExecutorIsTrueOnlyInsideATask() {
    boolean[] inside = new boolean[1];

    control.execute(() -> inside[0] = control.inExecutor());

    assertThat(inside[0]).isTrue();
    assertThat(control.inExecutor()).isFalse();
  }

  @Test
  void assertInExecutorFailsOffTheExecutorAndPassesOnIt() {
    assertThatThrownBy(control::assertInExecutor)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not on the control executor");
    AtomicInteger passed = new AtomicInteger();

    control.execute(
        () -> {
          control.assertInExecutor();
          passed.incrementAndGet();
        });

    assertThat(passed).hasValue(1);
  }

  @Test
  void aTaskThatThrowsDoesNotStopTheOnesQueuedAfterIt() {
    List<String> order = new ArrayList<>();

    control.execute(
        () -> {
          control.execute(
              () -> {
                throw new IllegalStateException("a broken task");
              });
          control.execute(() -> order.add("after the broken one"));
        });

    assertThat(order).containsExactly("after the broken one");
  }

  @Test
  void taskSubmittedWhileAnotherThreadDrainsRunsOnThatThreadAfterTheRunningTask() throws Exception {
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    List<String> order = new java.util.concurrent.CopyOnWriteArrayList<>();
    List<Thread> laterRanOn = new java.util.concurrent.CopyOnWriteArrayList<>();
    Thread owner =
        new Thread(
            () ->
                control.execute(
                    () -> {
                      running.countDown();
                      awaitQuietly(release);
                      order.add("first");
                    }),
            "owner");
    owner.start();
    assertThat(running.await(5, TimeUnit.SECONDS)).isTrue();

    control.execute(
        () -> {
          order.add("second");
          laterRanOn.add(Thread.currentThread());
        });
    assertThat(order).isEmpty();

    release.countDown();
    owner.join(5_000);
    assertThat(order).containsExactly("first", "second");
    assertThat(laterRanOn).containsExactly(owner);
  }

  @Test
  void tasksFromManyThreadsRunOneAtATimeAndNoneIsLost() throws Exception {
    int threads = 4;
    int perThread = 10_000;
    AtomicInteger running = new AtomicInteger();
    AtomicInteger overlaps = new AtomicInteger();
    int[] count = new int[1];
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> submitters = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread s =
          new Thread(
              () -> {
                awaitQuietly(start);
                for (int i = 0; i < perThread; i++) {
                  control.execute(
                      () -> {
                        if (running.incrementAndGet() != 1) {
                          overlaps.incrementAndGet();
                        }
                        count[0]++; // plain field: only safe because tasks never overlap
                        running.decrementAndGet();
                      });
                }
              });
      submitters.add(s);
      s.start();
    }
    start.countDown();
    for (Thread s : submitters) {
      s.join(10_000);
    }

    int[] seen = new int[1];
    control.execute(() -> seen[0] = count[0]);
    assertThat(overlaps).hasValue(0);
    assertThat(seen[0]).isEqualTo(threads * perThread);
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
