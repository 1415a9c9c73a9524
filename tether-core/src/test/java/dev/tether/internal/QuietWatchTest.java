package dev.tether.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.spi.Scheduler;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The shared watch shape on a fake clock: a watch of 100 ns of quiet, re-armed from the last
 * activity, firing once.
 */
class QuietWatchTest {
  private long nowNanos;
  private final List<Runnable> due = new ArrayList<>();
  private final List<Long> delays = new ArrayList<>();
  private final List<String> fired = new ArrayList<>();

  private final Scheduler scheduler =
      (task, delayNanos) -> {
        due.add(task);
        delays.add(delayNanos);
        return () -> due.remove(task);
      };

  /** Fires after 100 ns without activity. */
  private final class Quiet extends QuietWatch {
    long lastActivityNanos;

    Quiet() {
      super(() -> nowNanos, scheduler);
    }

    void start() {
      lastActivityNanos = ticker.nanoTime();
      arm(100);
    }

    @Override
    protected long check(long now) {
      long quiet = now - lastActivityNanos;
      if (quiet < 100) {
        return 100 - quiet;
      }
      fired.add("quiet for " + quiet);
      return -1;
    }
  }

  private void forwardAndFire(long nanos) {
    nowNanos += nanos;
    List<Runnable> now = new ArrayList<>(due);
    due.clear();
    now.forEach(Runnable::run);
  }

  @Test
  void reArmsForTheQuietTimeStillMissingAfterActivity() {
    Quiet w = new Quiet();
    w.start();
    nowNanos = 60;
    w.lastActivityNanos = 60;
    forwardAndFire(40);
    assertThat(fired).isEmpty();
    assertThat(delays).containsExactly(100L, 60L);
    forwardAndFire(60);
    assertThat(fired).containsExactly("quiet for 100");
    assertThat(due).isEmpty();
  }

  @Test
  void armsOneCheckAtATime() {
    Quiet w = new Quiet();
    w.start();
    w.start();
    assertThat(due).hasSize(1);
  }

  @Test
  void aStoppedWatchNeverArmsAgain() {
    Quiet w = new Quiet();
    w.start();
    w.stop();
    assertThat(due).isEmpty();
    w.start();
    assertThat(due).isEmpty();
    forwardAndFire(500);
    assertThat(fired).isEmpty();
  }
}
