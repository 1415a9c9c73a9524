package dev.tether.grpc.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.Executor;
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
