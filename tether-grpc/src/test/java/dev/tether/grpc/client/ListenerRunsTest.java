package dev.tether.grpc.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

/**
 * The channel's listener pool on executors that only keep what they are handed, so each wake-up and
 * each stall check is counted and run by the test, on its own thread.
 */
class ListenerRunsTest {
  /** Keeps tasks until the test runs them. */
  private static final class Kept implements Executor {
    final Queue<Runnable> tasks = new ArrayDeque<>();
    int handed;

    @Override
    public void execute(Runnable task) {
      handed++;
      tasks.add(task);
    }

    void runNext() {
      tasks.poll().run();
    }
  }

  private final Kept pool = new Kept();
  private final Kept timer = new Kept();
  private final ListenerRuns runs = new ListenerRuns(pool, timer);
  private final List<String> order = new ArrayList<>();

  @Test
  void completionsReadTogetherWakeOnePoolThread() {
    for (int i = 0; i < 10; i++) {
      int n = i;
      runs.execute(() -> order.add("call " + n));
    }

    assertThat(pool.handed).isEqualTo(1);
    pool.runNext();
    assertThat(order).hasSize(10).startsWith("call 0").endsWith("call 9");
    assertThat(pool.tasks).isEmpty();
  }

  @Test
  void runsQueuedWhileADrainerWorksAreItsOwnWithoutAnotherWakeUp() {
    runs.execute(
        () -> {
          order.add("first");
          runs.execute(() -> order.add("queued meanwhile"));
        });

    pool.runNext();

    assertThat(order).containsExactly("first", "queued meanwhile");
    assertThat(pool.handed).isEqualTo(1);
  }

  @Test
  void aListenerThatBlocksGetsTheRunsBehindItAnotherThreadAtTheStallCheck() {
    runs.execute(
        () -> {
          order.add("blocks");
          runs.execute(() -> order.add("behind it"));
          assertThat(timer.tasks).hasSize(1);
          timer.runNext(); // the check fires while this run still blocks: nothing ended
          assertThat(pool.handed).isEqualTo(2);
          pool.runNext(); // the second drainer runs what waited, while this one blocks
          assertThat(order).containsExactly("blocks", "behind it");
        });

    pool.runNext();

    assertThat(order).containsExactly("blocks", "behind it");
    assertThat(pool.tasks).isEmpty();
  }

  @Test
  void aStallCheckFindingNothingQueuedWakesNoOne() {
    runs.execute(() -> runs.execute(() -> order.add("behind")));
    pool.runNext();

    timer.runNext();

    assertThat(order).containsExactly("behind");
    assertThat(pool.handed).isEqualTo(1);
  }

  @Test
  void everyRunQueuedFromManyThreadsRunsOnceOnARealPool() throws Exception {
    ExecutorService realPool = Executors.newCachedThreadPool();
    try {
      ListenerRuns shared =
          new ListenerRuns(
              realPool,
              CompletableFuture.delayedExecutor(
                  ListenerRuns.STALL_CHECK_NANOS, TimeUnit.NANOSECONDS, Runnable::run));
      int threads = 4;
      int each = 20_000;
      LongAdder ran = new LongAdder();
      CountDownLatch done = new CountDownLatch(threads * each);
      List<Thread> producers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        Thread producer =
            new Thread(
                () -> {
                  for (int i = 0; i < each; i++) {
                    shared.execute(
                        () -> {
                          ran.increment();
                          done.countDown();
                        });
                  }
                });
        producers.add(producer);
        producer.start();
      }
      for (Thread producer : producers) {
        producer.join(30_000);
      }

      assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
      assertThat(ran.sum()).isEqualTo((long) threads * each);
    } finally {
      realPool.shutdownNow();
    }
  }

  @Test
  void aRunThatFailsLeavesTheOthersToRun() {
    runs.execute(
        () -> {
          throw new IllegalStateException("a listener broke");
        });
    runs.execute(() -> order.add("next"));

    pool.runNext();

    assertThat(order).containsExactly("next");
  }
}
