package dev.tether.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.spi.Scheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SerialTasksTest {
  @Test
  void runsOneCallsEventsInOrderAndNeverTwoAtOnce() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      SerialTasks tasks = new SerialTasks(pool, (task, delay) -> () -> {});
      List<Integer> ran = new CopyOnWriteArrayList<>();
      AtomicBoolean running = new AtomicBoolean();
      AtomicInteger overlaps = new AtomicInteger();
      CountDownLatch done = new CountDownLatch(1_000);

      for (int i = 0; i < 1_000; i++) {
        int n = i;
        tasks.execute(
            () -> {
              if (!running.compareAndSet(false, true)) {
                overlaps.incrementAndGet();
              }
              ran.add(n);
              running.set(false);
              done.countDown();
            });
      }

      assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(overlaps).hasValue(0);
      assertThat(ran).isSortedAccordingTo(Integer::compare).hasSize(1_000);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void offersEventsTheExecutorRefusedAgainOnTheSchedulerInsteadOfDroppingThem() {
    AtomicBoolean busy = new AtomicBoolean(true);
    List<Runnable> retries = new ArrayList<>();
    Scheduler scheduler =
        (task, delayNanos) -> {
          retries.add(task);
          return () -> {};
        };
    SerialTasks tasks =
        new SerialTasks(
            r -> {
              if (busy.get()) {
                throw new RejectedExecutionException("every thread is taken");
              }
              r.run();
            },
            scheduler);
    AtomicInteger ran = new AtomicInteger();

    tasks.execute(ran::incrementAndGet);
    tasks.execute(ran::incrementAndGet);
    assertThat(ran).hasValue(0);
    assertThat(retries).hasSize(1);

    busy.set(false);
    retries.get(0).run();

    assertThat(ran).hasValue(2);
  }

  @Test
  void anEventThatMayWaitGoesToTheLazyExecutorOnlyWhenNothingElseOfTheCallWaits() {
    List<Runnable> eager = new ArrayList<>();
    List<Runnable> lazy = new ArrayList<>();
    SerialTasks tasks = new SerialTasks(eager::add, lazy::add, (task, delay) -> () -> {}, null);
    List<String> ran = new ArrayList<>();

    tasks.executeLazily(() -> ran.add("completion"));
    assertThat(eager).isEmpty();
    assertThat(lazy).hasSize(1);
    lazy.remove(0).run();

    tasks.execute(() -> ran.add("message"));
    tasks.executeLazily(() -> ran.add("completion of the next"));
    assertThat(eager).hasSize(1); // it rides with the event already handed off
    assertThat(lazy).isEmpty();
    eager.remove(0).run();

    assertThat(ran).containsExactly("completion", "message", "completion of the next");
  }
}
