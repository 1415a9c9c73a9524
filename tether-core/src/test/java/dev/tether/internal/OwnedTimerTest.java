package dev.tether.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.spi.Scheduler;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.Test;

/** The owned timer on a hand-run scheduler and an owner whose queue the test drains. */
class OwnedTimerTest {
  private final List<Runnable> due = new ArrayList<>();
  private final List<Long> delays = new ArrayList<>();
  private final Queue<Runnable> ownerQueue = new ArrayDeque<>();
  private final List<String> ran = new ArrayList<>();

  private final Scheduler scheduler =
      (task, delayNanos) -> {
        due.add(task);
        delays.add(delayNanos);
        return () -> due.remove(task);
      };

  private void fireDue() {
    List<Runnable> now = new ArrayList<>(due);
    due.clear();
    now.forEach(Runnable::run);
  }

  private void runOwner() {
    Runnable r;
    while ((r = ownerQueue.poll()) != null) {
      r.run();
    }
  }

  @Test
  void runsTheTaskOnItsOwnerOnceDue() {
    OwnedTimer.schedule(scheduler, ownerQueue::add, () -> ran.add("task"), 5);
    assertThat(delays).containsExactly(5L);
    fireDue();
    assertThat(ran).isEmpty(); // handed to the owner, not run on the scheduler's thread
    runOwner();
    assertThat(ran).containsExactly("task");
  }

  @Test
  void cancelBeforeDueStopsTheScheduledTask() {
    Scheduler.Cancellable t =
        OwnedTimer.schedule(scheduler, ownerQueue::add, () -> ran.add("task"), 5);
    t.cancel();
    assertThat(due).isEmpty();
    runOwner();
    assertThat(ran).isEmpty();
  }

  @Test
  void cancelsATaskThatAlreadyHoppedToItsOwner() {
    Scheduler.Cancellable t =
        OwnedTimer.schedule(scheduler, ownerQueue::add, () -> ran.add("task"), 5);
    fireDue();
    assertThat(ownerQueue).hasSize(1);
    t.cancel(); // on the owner, before it reaches the queued task
    runOwner();
    assertThat(ran).isEmpty();
  }

  @Test
  void aStoppedSchedulerOrOwnerRunsNothingAndThrowsNothing() {
    Scheduler stopped =
        (task, delayNanos) -> {
          throw new RejectedExecutionException("stopped");
        };
    OwnedTimer.schedule(stopped, ownerQueue::add, () -> ran.add("task"), 5).cancel();
    OwnedTimer.schedule(
        scheduler,
        task -> {
          throw new RejectedExecutionException("loop stopped");
        },
        () -> ran.add("task"),
        5);
    fireDue();
    assertThat(ran).isEmpty();
  }
}
